"""Bot levels over HTTP: a table's bot seats and the bot that takes a timed-out seat may be any level, the
hard and expert ones included; a level that does not exist is refused, naming the field, and nothing is stored."""

from __future__ import annotations

import pytest

from domain.baloot.bots import LEVELS
from services.championships import stream_of as championship_stream
from services.eventstore.store import read_stream
from services.tables import CODEC
from services.tables.service import stream_of
from domain.table import TableOpened
from tests.api.conftest import new_user
from tests.api.test_tables import assert_problem


async def _seats(api) -> tuple[list[str], dict]:
    me, headers = await new_user(api, "player")
    return [me, "bot", "bot", "bot"], headers


@pytest.mark.parametrize("level", LEVELS)
async def test_a_table_seats_bots_of_each_level(api, pool, level):
    seats, headers = await _seats(api)
    r = await api.post("/tables", json={"seats": seats, "bot_level": level, "turn_seconds": 60,
                                        "on_timeout": "bot", "timeout_bot_level": level}, headers=headers)
    assert r.status_code == 201, r.text
    rows = await read_stream(pool, stream_of(r.json()["table_id"]))
    opened = next(e for e in map(CODEC.decode, rows) if isinstance(e, TableOpened))
    assert opened.bots == (None, level, level, level)
    assert opened.timeout_bot_level == level


@pytest.mark.parametrize("field", ["bot_level", "timeout_bot_level"])
async def test_an_unknown_bot_level_is_refused_naming_the_field(api, pool, field):
    seats, headers = await _seats(api)
    before = await pool.fetchval("SELECT count(*) FROM events")
    r = await api.post("/tables", json={"seats": seats, field: "grandmaster"}, headers=headers)
    assert_problem(r, 400, "invalid_field", field=field)
    assert await pool.fetchval("SELECT count(*) FROM events") == before


async def test_a_championship_runs_its_bot_seats_at_the_level_it_was_created_with(api, pool):
    _, headers = await new_user(api, "organiser")
    r = await api.post("/championships", json={"command_id": "cup", "name": "Cup", "bot_level": "expert",
                                               "on_timeout": "bot"}, headers=headers)
    assert r.status_code == 201, r.text
    [first] = await read_stream(pool, championship_stream(r.json()["championship_id"]), limit=1)
    assert first.metadata["run"]["bot_level"] == "expert"
    r = await api.post("/championships", json={"command_id": "cup-2", "name": "Cup", "bot_level": "grandmaster"},
                       headers=headers)
    assert_problem(r, 400, "invalid_field", field="bot_level")
