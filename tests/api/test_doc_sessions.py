"""Every shell block of the README and the docs that claims to work is run as it is written.

A block carries a marker on the line before its fence: ``<!-- tested: NAME -->`` (run here, against the app
served on this test's schema when it talks HTTP, with its own check of what it printed), ``<!-- ci: WHAT -->``
(a command CI itself runs, e.g. ``.ci/run`` runs ``deploy/smoke``) or ``<!-- not-run: WHY -->`` (a block
that is not claimed to be checked: one that deletes data, the benchmarks). A block with none is refused, so
that no block claims to work unchecked. Blocks that call ``.venv/bin/...`` run in a directory whose
``.venv`` is this interpreter's.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
from pathlib import Path

import asyncpg
import pytest

from services.api.app import create_app
from services.platform import Platform
from services.tables import TableOpened
from tests.api.conftest import schema_url
from tests.api.test_tables import served

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "deploy").glob("*.md"))]
BLOCK = re.compile(r"(?:<!-- (tested|ci|not-run): ([^>]+?) -->\n)?```sh\n(.*?)\n```", re.S)


def blocks() -> list[tuple[str, str | None, str | None, str]]:
    """(document, marker kind, marker, text) of every ```sh block."""
    return [(str(doc.relative_to(ROOT)), m.group(1), m.group(2), m.group(3))
            for doc in DOCUMENTS for m in BLOCK.finditer(doc.read_text())]


def block_named(name: str) -> str:
    found = [text for _, kind, marker, text in blocks() if kind == "tested" and marker == name]
    assert len(found) == 1, f"one block is marked `tested: {name}`, not {len(found)}"
    return found[0]


async def run_block(text: str, cwd: Path, **env: str) -> str:
    """The block run by bash in ``cwd`` (errors stop it), ``.venv`` there being this interpreter's."""
    assert shutil.which("curl") and shutil.which("jq"), "the documented sessions need curl and jq"
    venv = cwd / ".venv"
    if not venv.exists():
        venv.symlink_to(Path(sys.executable).parent.parent)
    proc = await asyncio.create_subprocess_exec("bash", "-euo", "pipefail", "-c", text, env={**os.environ, **env},
                                                cwd=cwd, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE)
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()[-3000:]
    return out.decode()


def test_every_shell_block_says_how_it_is_checked():
    unmarked = [(doc, text.splitlines()[0]) for doc, kind, _, text in blocks() if kind is None]
    assert unmarked == [], f"shell blocks with no `tested:` or `ci:` marker: {unmarked}"
    names = [marker for _, kind, marker, _ in blocks() if kind == "tested"]
    assert sorted(names) == sorted(CHECKS) and len(set(names)) == len(names)


async def check_card_deal(database_url, db_schema, tmp_path):
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    async with served(app) as base:
        out = await run_block(block_named("card-deal"), tmp_path, API=base)
    *moves, audit = [json.loads(line) for line in out.splitlines()]
    # Bids until a contract, then the 32 cards of the deal (projects and Baloot may be declared on the way).
    assert len(moves) >= 32 and all(0 <= m["seat"] <= 3 for m in moves)
    versions = [m["version"] for m in moves]
    assert versions == sorted(set(versions))                     # each move stored, in order
    assert sum(m["action"]["type"] == "play" for m in moves) == 32
    assert audit["chain_intact"] is True
    assert audit["seed_check"] == "seed matches the commitment and the dealt hands"
    assert len(audit["game_points"]) == 2


async def check_balut_game(database_url, db_schema, tmp_path):
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    async with served(app) as base:
        out = await run_block(block_named("balut-game"), tmp_path, API=base)
    *commands, result, audit = [json.loads(line) for line in out.splitlines()]
    # Three players, seven rows each: a first throw and a row written per turn, in turns of the seats.
    assert len(commands) == 2 * 3 * 7
    assert [c["action"]["type"] for c in commands] == ["roll", "score"] * 21
    assert all(c["events"][0] == ("balut_dice_rolled" if c["action"]["type"] == "roll"
                                  else "balut_category_scored") for c in commands)
    assert sorted(c["seat"] for c in commands) == sorted([0, 1, 2] * 14)
    assert commands[-1]["events"][-2:] == ["balut_ended", "balut_seed_revealed"]
    assert len(result["totals"]) == 3 and result["winners"]
    assert audit == {"chain_intact": True, "valid": True, "format": "balut-game/1"}


async def check_rehearse(database_url, db_schema, tmp_path):
    out = await run_block(block_named("rehearse"), tmp_path, DATABASE_URL=database_url)   # its own scratch schema
    checks = ("hash chains", "deal seeds", "read models", "bracket", "no game open", "stored once")
    assert all(re.search(rf"{name}\s+│ ok ", out) for name in checks), out[-2000:]
    assert "champion" in out and "63 matches" in out


async def check_anchor_cli(database_url, db_schema, tmp_path):
    url = schema_url(database_url, db_schema)
    async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:      # a table in the log to anchor
        await (await Platform.on(pool)).tables.open_table(TableOpened(table_id="anchored", seats=tuple("abcd")))
    out = await run_block(block_named("anchor-cli"), tmp_path, DATABASE_URL=url)
    exported = json.loads(Path("/tmp/checkpoints.json").read_text())
    assert len(exported) == 1 and "Checkpoint #1: 3 events" in out
    assert "Checked 1 streams, 3 events, 0 receipts, 1 checkpoints" in out and out.rstrip().endswith("OK: no findings")


async def check_cli_offline(database_url, db_schema, tmp_path):
    out = await run_block(block_named("cli-offline"), tmp_path)
    assert "VALID" in out and "champion:" in out and '"champion"' in out
    report = json.loads(out[out.index("{"):out.index("\n}") + 2])       # the --json audit of deal 2
    assert report["valid"] is True and len(report["game_points"]) == 2


CHECKS = {"card-deal": check_card_deal, "balut-game": check_balut_game, "rehearse": check_rehearse,
          "anchor-cli": check_anchor_cli, "cli-offline": check_cli_offline}


@pytest.mark.parametrize("name", sorted(CHECKS))
async def test_the_documented_session_runs_as_written(name, database_url, db_schema, tmp_path):
    await CHECKS[name](database_url, db_schema, tmp_path)
