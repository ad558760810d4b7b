"""A table's bot pace on the API: ``bot_pace_seconds`` in the table's terms (a person's table: a second by
default; a championship's tables: its run's pace, full speed by default), refused out of range naming the
field and storing nothing, and a delayed spectator of a paced table receiving its events at the pace they
were stored (``GET /tables/{id}/live``), not in one burst."""

from __future__ import annotations

import asyncio
import datetime as dt
import json

import httpx

from services.api.app import create_app
from services.db import schema_url
from tests.api.conftest import new_user
from tests.api.test_championships import command, create, drawn, teams_of
from tests.api.test_tables import assert_problem, served, view
from tests.workers.helpers import in_process, stream_rows


async def stored(pool) -> tuple[int, int]:
    return await pool.fetchval("SELECT count(*) FROM events"), await pool.fetchval("SELECT count(*) FROM tables_index")


async def test_a_tables_bot_pace_is_in_its_terms_and_one_out_of_range_is_refused_storing_nothing(api, pool, referee):
    async def pace_of(**options) -> float:
        r = await api.post("/tables", headers=referee, json={"seats": ["bot"] * 4, **options})
        assert r.status_code == 201, r.text
        return (await view(api, r.json()["table_id"], referee))["terms"]["bot_pace_seconds"]

    assert await pace_of() == 1.0                     # a table a person proposes: its bots a second apart
    assert await pace_of(bot_pace_seconds=0) == 0.0
    assert await pace_of(bot_pace_seconds=2.5) == 2.5
    assert await pace_of(bot_pace_seconds=10) == 10.0
    before = await stored(pool)
    for bad in (-1, 11, 10.5, "1"):
        r = await api.post("/tables", headers=referee, json={"seats": ["bot"] * 4, "bot_pace_seconds": bad})
        assert_problem(r, 400, "invalid_field", field="bot_pace_seconds")
    assert await stored(pool) == before


async def test_a_championships_bot_pace_is_in_its_run_and_in_its_tables_terms(api, pool):
    _, organiser = await new_user(api, "organiser")
    before = await stored(pool)
    r = await api.post("/championships", headers=organiser,
                       json={"command_id": "too-slow", "name": "Slow Cup", "bot_pace_seconds": 11})
    assert_problem(r, 400, "invalid_field", field="bot_pace_seconds")
    assert await stored(pool) == before
    full_speed = await create(api, organiser, "full-speed")
    assert (await api.get(f"/championships/{full_speed}", headers=organiser)).json()["run"]["bot_pace_seconds"] == 0.0

    cid = await drawn(api, organiser, await teams_of(api, 2), command_id="paced", bot_pace_seconds=0.5)
    started = await command(api, cid, "rounds/1/start", organiser, "round-1")
    assert started["summary"]["run"]["bot_pace_seconds"] == 0.5
    (table,) = started["tables"]
    terms = (await view(api, table["table_id"], organiser))["terms"]
    assert terms["championship_id"] == cid and terms["bot_pace_seconds"] == 0.5


async def follow_timed(base: str, tid: str, headers: dict, arrivals: list, opening_seen: asyncio.Event,
                       until_version: int) -> None:
    """Read /live as ``headers``' user, noting each `view` message's version and when it arrived, until the
    one at ``until_version``; ``opening_seen`` is set at the first message."""
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=httpx.Timeout(60.0)) as client:
        async with client.stream("GET", f"/tables/{tid}/live") as r:
            assert r.status_code == 200, await r.aread()
            fields: dict[str, str] = {}
            async for line in r.aiter_lines():
                if line:
                    name, _, value = line.partition(":")
                    fields[name] = value[1:] if value.startswith(" ") else value
                    continue
                if fields.get("event") == "view":
                    version = int(fields["id"])
                    assert json.loads(fields["data"])["seat"] is None             # a spectator's view
                    arrivals.append((version, dt.datetime.now(dt.timezone.utc)))
                    opening_seen.set()
                    if version >= until_version:
                        return
                assert fields.get("event") in (None, "view"), fields
                fields = {}
    raise AssertionError("the stream closed early")


async def test_a_delayed_spectator_receives_a_paced_tables_events_at_the_pace_they_were_stored(
        database_url, db_schema, pool):
    pace, delay, bot_events = 0.25, 0.5, 8
    url = schema_url(database_url, db_schema)
    async with in_process(url) as rig:
        app = create_app(url, rate_limit=("second", 100_000), work=rig.workers)
        async with served(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
            _, referee = await new_user(client, "referee")
            _, spectator = await new_user(client, "spectator")
            r = await client.post("/tables", headers=referee, json={
                "seats": ["bot"] * 4, "bot_pace_seconds": pace, "delay_seconds": delay})
            assert r.status_code == 201, r.text
            tid, opened_at = r.json()["table_id"], r.json()["version"]
            arrivals: list[tuple[int, dt.datetime]] = []
            opening_seen = asyncio.Event()
            reading = asyncio.create_task(follow_timed(base, tid, spectator, arrivals, opening_seen,
                                                       opened_at + bot_events))
            await asyncio.wait_for(opening_seen.wait(), timeout=30)    # the spectator is there, behind the delay
            rig.start()                                                 # only now do the bots play
            await asyncio.wait_for(reading, timeout=60)
            rig.check()
            ended = await client.post(f"/tables/{tid}/rulings", headers=referee, json={
                "command_id": "enough", "ruling": {"type": "end_game", "reason": "watched enough"}})
            assert ended.status_code == 200, ended.text

    rows = {r.version: r for r in await stream_rows(pool, tid)}
    # Nothing reached the spectator before the table's delay.
    late = [(v, (at - rows[v].recorded_at).total_seconds()) for v, at in arrivals]
    assert all(seconds >= delay - 0.01 for _, seconds in late), late
    # The bots' actions, each stored alone (one append: its events, what followed by itself) at least the pace
    # after the one before, arrived as far apart.
    bots = [(v, at) for v, at in arrivals if v > opened_at]
    assert [v for v, _ in bots] == list(range(opened_at + 1, opened_at + bot_events + 1))
    assert all(rows[v].metadata["role"] == "bot" for v, _ in bots)
    actions = [next((rows[v], at) for v, at in bots if rows[v].tx_id == tx)
               for tx in dict.fromkeys(rows[v].tx_id for v, _ in bots)]
    assert len(actions) >= 4, actions
    stored_gaps = [(b.recorded_at - a.recorded_at).total_seconds() for (a, _), (b, _) in zip(actions, actions[1:])]
    seen_gaps = [(b - a).total_seconds() for (_, a), (_, b) in zip(actions, actions[1:])]
    assert min(stored_gaps) >= pace, stored_gaps
    assert all(seen >= stored - 0.1 for seen, stored in zip(seen_gaps, stored_gaps)), (seen_gaps, stored_gaps)
