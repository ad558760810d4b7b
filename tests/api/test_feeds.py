"""The followers of one table share one reader per process (one read per append, not one per
follower), each still gets its own view, and a spectator behind the broadcast delay still gets nothing early.

Served by uvicorn (the ASGI test client buffers a stream until it ends). Reads are counted by wrapping the
real ``read_stream`` the live routes call (the database is real); the feed's polling fallback is set far
away so that only notifications wake it.
"""

from __future__ import annotations

import asyncio
import contextlib
import random

import httpx

from services.api import routes_tables
from services.tables import feeds
from services.api.app import create_app
from services.db import schema_url
from services.eventstore import listen
from tests.api.conftest import new_user, open_table
from tests.api.test_tables import Ids, follow, served, step, stream_version


@contextlib.asynccontextmanager
async def following(base: str, tid: str, audience: list[tuple[str, dict]]):
    """One live stream per (name, headers); yields their message lists and 'something arrived' events."""
    out = {name: [] for name, _ in audience}
    got = {name: asyncio.Event() for name, _ in audience}
    tasks = [asyncio.create_task(follow(base, tid, h, out[name], first=got[name])) for name, h in audience]
    try:
        yield out, got
    finally:
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t


async def until_version(out: list, got: asyncio.Event, version: int) -> None:
    """Until the stream has delivered ``version`` (each delivery sets ``got``)."""
    while not out or out[-1][0] < version:
        got.clear()
        if out and out[-1][0] >= version:
            return
        await asyncio.wait_for(got.wait(), timeout=20)


async def test_n_followers_of_one_table_cost_one_read_per_append(database_url, db_schema, pool, monkeypatch):
    reads: list[tuple[str, int]] = []
    real = feeds.read_stream

    async def counted(pool_, stream, *args, **kwargs):
        reads.append((stream, args[0] if args else 1))
        return await real(pool_, stream, *args, **kwargs)

    monkeypatch.setattr(feeds, "read_stream", counted)
    monkeypatch.setattr(routes_tables, "read_stream", counted)
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    # The commands go through another API process: this one learns of each append from its notification only
    # (its own appends reach its feed without a read: tests/api/test_command_path.py).
    there = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    async with served(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client, \
            served(there) as base_there, httpx.AsyncClient(base_url=base_there, timeout=30) as other:
        players = [await new_user(client, f"p{i}") for i in range(4)]
        app.state.platform.feeds.poll = 3600.0               # only notifications wake the feed (the lifespan has run)
        spectators = [await new_user(client, f"s{i}") for i in range(3)]
        tid = await open_table(client, players, hands_policy="never")
        audience = [(f"p{i}", h) for i, (_, h) in enumerate(players)] + [
            (f"s{i}", h) for i, (_, h) in enumerate(spectators)]
        async with following(base, tid, audience) as (out, got):
            head = await stream_version(pool, tid)
            for name, _ in audience:
                await until_version(out[name], got[name], head)
            assert app.state.platform.feeds.following() == 1
            before = len(reads)
            rng, ids, appends = random.Random(12), Ids(), 8
            for _ in range(appends):
                v = await step(other, tid, players, rng, ids)
                for name, _ in audience:
                    await until_version(out[name], got[name], v["version"])
            table_reads = [r for r in reads[before:] if r[0] == f"table-{tid}"]
            # One reader for the 7 followers: at most one read per append (appends close together share one).
            assert 1 <= len(table_reads) <= appends
            last = await stream_version(pool, tid)
            for name, _ in audience:
                assert [m[0] for m in out[name]] == list(range(1, last + 1))     # every version, in order
            for i in range(4):                                                 # each seat sees its own hand
                assert all(m[2]["seat"] == i for m in out[f"p{i}"])
                assert out[f"p{i}"][-1][2]["deal"]["viewer"] == i
            hands = [set(out[f"p{i}"][-1][2]["deal"]["hand"]) for i in range(4)]
            assert all(hands) and all(not (a & b) for k, a in enumerate(hands) for b in hands[k + 1:])
            for i in range(3):                                                 # spectators: no hand at all
                assert all(m[2]["seat"] is None for m in out[f"s{i}"])
                assert all(m[2]["deal"] is None or (m[2]["deal"]["hand"] is None and m[2]["deal"]["hands"] is None)
                           for m in out[f"s{i}"])
        for uid, _ in players + spectators:
            await asyncio.wait_for(app.state.streams.wait_until(uid, 0), timeout=10)
        assert app.state.platform.feeds.following() == 0                        # dropped with its last follower


async def test_a_spectator_behind_the_delay_gets_nothing_early_from_the_shared_feed(database_url, db_schema, pool):
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    async with served(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
        players = [await new_user(client, f"p{i}") for i in range(4)]
        _, early = await new_user(client, "from-start")
        _, late = await new_user(client, "from-now")
        tid = await open_table(client, players, hands_policy="always", delay_seconds=1800)
        head = await stream_version(pool, tid)
        out = {"p0": [], "early": [], "late": []}
        got = {k: asyncio.Event() for k in out}
        tasks = [asyncio.create_task(follow(base, tid, players[0][1], out["p0"], first=got["p0"])),
                 asyncio.create_task(follow(base, tid, early, out["early"], first=got["early"])),
                 asyncio.create_task(follow(base, tid, late, out["late"], after=head, first=got["late"]))]
        try:
            await until_version(out["p0"], got["p0"], head)
            rng, ids = random.Random(3), Ids()
            for _ in range(4):
                v = await step(client, tid, players, rng, ids)
                await until_version(out["p0"], got["p0"], v["version"])
            # The player's follower got every row from the same feed; the spectators got nothing at all.
            assert out["p0"][-1][0] == await stream_version(pool, tid)
            assert out["early"] == [] and out["late"] == []
            assert not got["early"].is_set() and not got["late"].is_set()
        finally:
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await t


async def test_a_follower_whose_notifications_are_lost_gets_every_event_at_the_poll(database_url, db_schema, pool,
                                                                                    monkeypatch):
    # No notification reaches any feed of this process: the feeds' one poller reads each quiet feed.
    monkeypatch.setattr(listen.Wake, "note", lambda self, version: None)
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    there = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    async with served(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client, \
            served(there) as base_there, httpx.AsyncClient(base_url=base_there, timeout=30) as other:
        players = [await new_user(client, f"p{i}") for i in range(4)]
        app.state.platform.feeds.poll = 0.2
        tid = await open_table(client, players, hands_policy="never")
        audience = [(f"p{i}", h) for i, (_, h) in enumerate(players)]
        async with following(base, tid, audience) as (out, got):
            rng, ids = random.Random(5), Ids()
            for _ in range(4):
                v = await step(other, tid, players, rng, ids)
                for name, _ in audience:
                    await until_version(out[name], got[name], v["version"])
            last = await stream_version(pool, tid)
            for name, _ in audience:
                assert [m[0] for m in out[name]] == list(range(1, last + 1))     # every version, in order
