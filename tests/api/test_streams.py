"""Each user holds at most ``max_streams_per_user`` live streams at once.

Served by uvicorn (the ASGI test client buffers a stream until it ends); the test waits on the app's own
slot count, not on a sleep, for the server to notice a client has gone.
"""

from __future__ import annotations

import asyncio
import contextlib

import httpx

from domain.baloot.events import ForfeitGame
from services.api.app import create_app
from tests.api.conftest import new_user, open_table
from tests.api.test_tables import PROBLEM, served


@contextlib.asynccontextmanager
async def live_table(database_url: str, db_schema: str, cap: int):
    """A served app whose users hold ``cap`` streams each, a live table, and a spectator (id, headers)."""
    from services.db import schema_url
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000), max_streams_per_user=cap)
    async with served(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
        players = [await new_user(client, f"p{i}") for i in range(4)]
        spectator = await new_user(client, "spectator")
        yield app, client, players, spectator, await open_table(client, players)


async def open_stream(stack: contextlib.AsyncExitStack, client: httpx.AsyncClient, tid: str, headers: dict):
    return await stack.enter_async_context(client.stream("GET", f"/tables/{tid}/live", headers=headers))


async def test_the_stream_after_the_cap_is_refused_until_one_is_closed(database_url, db_schema):
    async with live_table(database_url, db_schema, 3) as (app, client, players, (spectator_id, spectator), tid):
        slots = app.state.streams
        async with contextlib.AsyncExitStack() as first, contextlib.AsyncExitStack() as rest:
            r = await open_stream(first, client, tid, spectator)
            assert r.status_code == 200
            for _ in range(2):
                assert (await open_stream(rest, client, tid, spectator)).status_code == 200
            assert slots.open(spectator_id) == 3

            refused = await client.get(f"/tables/{tid}/live", headers=spectator)
            assert refused.status_code == 429 and refused.headers["content-type"].startswith(PROBLEM)
            assert refused.json()["rule"] == "too_many_streams"
            assert "retry-after" in refused.headers
            # Another user has slots of its own.
            assert (await open_stream(rest, client, tid, players[1][1])).status_code == 200

            await first.aclose()                                # the client goes away
            await asyncio.wait_for(slots.wait_until(spectator_id, 2), timeout=10)
            assert (await open_stream(rest, client, tid, spectator)).status_code == 200
            assert slots.open(spectator_id) == 3
        await asyncio.wait_for(slots.wait_until(spectator_id, 0), timeout=10)


async def test_a_stream_that_ends_gives_its_slot_back(database_url, db_schema):
    async with live_table(database_url, db_schema, 1) as (app, client, _, (spectator_id, spectator), tid):
        async with client.stream("GET", f"/tables/{tid}/live", headers=spectator) as r:
            assert r.status_code == 200
            assert (await client.get(f"/tables/{tid}/live", headers=spectator)).status_code == 429
            # The game ends (a forfeit, through the service's command path): the stream says `end` and stops.
            await app.state.platform.tables.execute(tid, "forfeit", lambda t: ForfeitGame(team=0, reason="walked away"),
                                           actor="test", role="system", digest="forfeit")
            lines = [line async for line in r.aiter_lines()]
            assert "event: end" in lines
        await asyncio.wait_for(app.state.streams.wait_until(spectator_id, 0), timeout=10)
        # The finished table streams to its end again, with the slot taken and given back each time.
        for _ in range(2):
            r = await client.get(f"/tables/{tid}/live", headers=spectator)
            assert r.status_code == 200 and "event: end" in r.text
            await asyncio.wait_for(app.state.streams.wait_until(spectator_id, 0), timeout=10)


async def test_a_refused_or_unknown_table_takes_no_slot(api, players):
    uid, h = players[0]
    r = await api.get("/tables/nope/live", headers=h)
    assert r.status_code == 404
    assert api.app.state.streams.open(uid) == 0


async def test_an_append_wakes_only_the_followers_of_its_stream(database_url, db_schema, pool):
    """The store's NOTIFY names the stream appended to and its version, so a follower of another table is not
    woken to read, and a follower already there knows it."""
    import uuid

    from services.db import schema_url
    from services.eventstore import NewEvent, append
    from services.eventstore.listen import Listener

    listener = Listener()
    await listener.start(schema_url(database_url, db_schema))
    try:
        here, there = f"table-{uuid.uuid4().hex}", f"table-{uuid.uuid4().hex}"
        woken, asleep = listener.follow(here), listener.follow(there)
        await append(pool, here, None, [NewEvent(event_type="noted", data={"v": 1})])
        await asyncio.wait_for(woken.wait(), timeout=10)
        assert not asleep.is_set() and woken.take() == (True, 1)
        await append(pool, there, None, [NewEvent(event_type="noted", data={"v": 2})])
        await asyncio.wait_for(asleep.wait(), timeout=10)
        assert not woken.is_set() and asleep.take() == (True, 1)

        await pool.execute("NOTIFY baloot_events")                       # a NOTIFY naming no stream wakes all
        await asyncio.wait_for(asyncio.gather(woken.wait(), asleep.wait()), timeout=10)
        assert woken.take() == (True, None) and asleep.take() == (True, None)
        listener.unfollow(here, woken)
        await append(pool, here, None, [NewEvent(event_type="noted", data={"v": 3})])
        await append(pool, there, None, [NewEvent(event_type="noted", data={"v": 4})])
        await asyncio.wait_for(asleep.wait(), timeout=10)
        assert not woken.is_set()                                         # no longer followed
    finally:
        await listener.stop()
