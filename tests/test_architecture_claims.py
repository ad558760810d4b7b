"""What docs/architecture.md says of the code is true where a machine can tell: every file and folder it names
exists, every name it places in a module is defined there, every dotted name imports, and every contract it
describes is one that `lint-imports` enforces (tests/test_architecture.py runs them)."""

import importlib
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text()
CODE = re.findall(r"`([^`\n]+)`", DOC)
TOP = ("domain/", "services/", "projections/", "migrations/", "tests/", "deploy/", "bench/", "schemas/")


def _paths():
    for span in CODE:
        word = span.split()[0].rstrip(",:;")
        if word.startswith(TOP) and "*" not in word and "<" not in word:
            yield word


def test_every_file_and_folder_it_names_exists():
    named = set(_paths())
    assert len(named) >= 50            # the document names its files in backticks; the check reads them all
    missing = sorted({p for p in named if not (ROOT / p).exists()})
    assert missing == [], f"docs/architecture.md names what is not in the tree: {missing}"


def test_every_name_it_places_in_a_module_is_defined_there():
    # "`services/commands.py` `Applied`": a file, then (next span, right after it) a name defined in it.
    wrong, pairs = [], 0
    for m in re.finditer(r"`((?:domain|services|projections)/[\w/]+\.py)`\s+`([A-Za-z_][\w]*)", DOC):
        path, name = m.groups()
        pairs += 1
        text = (ROOT / path).read_text() if (ROOT / path).exists() else ""
        if not re.search(rf"^\s*(?:async\s+def|def|class)\s+{name}\b|^\s*{name}\s*[:=]", text, re.M):
            wrong.append(f"{path} {name}")
    assert pairs >= 5 and wrong == []


def test_every_dotted_name_imports():
    wrong, dotted = [], 0
    for span in CODE:
        m = re.fullmatch(r"((?:domain|services|projections)(?:\.\w+)+)(?:\[[^\]]*\])?(?:\(\))?", span)
        if not m:
            continue
        dotted += 1
        parts = m.group(1).split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ModuleNotFoundError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                wrong.append(span)
            break
        else:
            wrong.append(span)
    assert dotted >= 3 and wrong == []


def test_the_contracts_it_describes_are_enforced():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]

    def forbids(source: str, target: str) -> bool:
        return any(c["type"] == "forbidden" and source in c["source_modules"]
                   and any(target == f or target.startswith(f + ".") for f in c["forbidden_modules"])
                   for c in contracts)

    assert forbids("domain", "services") and forbids("domain", "asyncpg") and forbids("domain", "litestar")
    assert forbids("projections", "services")
    assert forbids("services.tables", "services.championships") and forbids("services.tables", "services.daily")
