"""The log is read through the event store: no SQL on the ``events`` table (a FROM, JOIN, INTO or UPDATE of it,
a JSON field of a payload picked out in SQL) outside ``services/eventstore/`` and ``services/anchor/`` (which
hashes the stored bytes themselves). A read elsewhere would skip the codec's upcasters and tie its module to the
table's columns and indexes. ``bench/`` is not looked at: its raw asyncpg reads are the baselines it measures
the store against."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SQL_ON_EVENTS = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+events\b|\bdata\s*->>?\s*'", re.IGNORECASE)
THE_STORE = ("services/eventstore/", "services/anchor/")


def sql_on_events(root: Path) -> dict[str, list[str]]:
    """Each module under ``root/services`` (the store's aside) with SQL on the events table: its lines."""
    found: dict[str, list[str]] = {}
    for path in sorted((root / "services").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name.startswith(THE_STORE):
            continue
        text = path.read_text(encoding="utf-8")
        lines = [text.splitlines()[text.count("\n", 0, m.start())].strip() for m in SQL_ON_EVENTS.finditer(text)]
        if lines:
            found[name] = lines
    return found


def test_only_the_event_store_writes_sql_on_the_log():
    found = sql_on_events(ROOT)
    assert found == {}


def test_the_look_finds_sql_on_the_log(tmp_path):
    """Each form it looks for, in a module of its own: a look that matched nothing would pass above too."""
    samples = {
        "a": 'Q = "SELECT max(version) FROM events WHERE stream_id = $1"',
        "b": 'Q = """SELECT 1 FROM tables_index t\n  JOIN\n events e ON true"""',
        "c": "Q = \"SELECT stream_id FROM x WHERE data->>'call' IS NOT NULL\"",
        "d": "Q = \"SELECT data -> 'seed' FROM x\"",
        "e": 'Q = "insert into events VALUES (1)"',
        "quiet": '"""Read from the events of a stream; events table rows."""\nQ = "SELECT * FROM tables_index"',
    }
    for name, text in samples.items():
        (tmp_path / "services" / "x").mkdir(parents=True, exist_ok=True)
        (tmp_path / "services" / "x" / f"{name}.py").write_text(text)
    (tmp_path / "services" / "eventstore").mkdir()
    (tmp_path / "services" / "eventstore" / "reads.py").write_text(samples["a"])
    assert sorted(sql_on_events(tmp_path)) == [f"services/x/{n}.py" for n in "abcde"]
