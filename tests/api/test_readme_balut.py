"""The README's Balut session, run as written: its shell block (curl and jq) against the app served on this
test's schema, a whole game of three players, then the audit of the stored game."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from pathlib import Path

from services.api.app import create_app
from tests.api.conftest import schema_url
from tests.api.test_tables import served

README = Path(__file__).resolve().parents[2] / "README.md"


def balut_block() -> str:
    """The ```sh block that follows the README's ``<!-- balut-curl -->`` marker."""
    match = re.search(r"<!-- balut-curl -->\n```sh\n(.*?)\n```", README.read_text(), re.S)
    assert match, "README has no Balut curl session"
    return match.group(1)


async def test_the_readme_balut_session_plays_a_whole_game_and_audits_it(database_url, db_schema):
    assert shutil.which("curl") and shutil.which("jq"), "the README session needs curl and jq"
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    async with served(app) as base:
        proc = await asyncio.create_subprocess_exec(
            "bash", "-euo", "pipefail", "-c", balut_block(), env={**os.environ, "API": base},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    lines = [json.loads(line) for line in out.decode().splitlines()]
    *commands, result, audit = lines
    # Three players, seven rows each: a first throw and a row written per turn, in turns of the seats.
    assert len(commands) == 2 * 3 * 7
    assert [c["action"]["type"] for c in commands] == ["roll", "score"] * 21
    assert all(c["events"][0] == ("balut_dice_rolled" if c["action"]["type"] == "roll"
                                  else "balut_category_scored") for c in commands)
    assert sorted(c["seat"] for c in commands) == sorted([0, 1, 2] * 14)
    assert commands[-1]["events"][-2:] == ["balut_ended", "balut_seed_revealed"]
    assert len(result["totals"]) == 3 and result["winners"]
    assert audit == {"chain_intact": True, "valid": True, "format": "balut-game/1"}
