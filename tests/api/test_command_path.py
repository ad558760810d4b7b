"""What a human action costs the database, its command and its fan-out together, and that the
fold it is decided on without a read never decides anything wrongly.

Four players follow their table on ``/live`` and act from what their own stream shows (no polling), with a
spectator on the stream too; every statement the app's connections send to PostgreSQL is counted (asyncpg's
query loggers: the database is real). The process that follows a table decides a
command on its feed's fold (no read) and hands its own append to the feed (no read back): an action costs
its append and a share of one NOTIFY. Budget: at most three statements per action (the issue's minimum).

A fold may be behind (another process appended, its notification not here yet): the append at its version
then fails, and the table is read before anything is refused.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random
from typing import Any

import asyncpg
import httpx
from litestar import Router, get
from litestar.di import NamedDependency, Provide

from services.api.app import create_app
from services.api.deps import Caller, Feeds, Gate, Tables
from services.db import schema_url
from tests.api.conftest import new_user, open_table
from tests.api.test_feeds import following, until_version
from tests.api.test_tables import Ids, choose, served, stream_version

BUDGET = 3            # statements per human action, command and fan-out together


@contextlib.asynccontextmanager
async def counting_statements(pool: asyncpg.Pool):
    """Every statement the app's connections send while inside, by its first words: asyncpg's query logger
    on each connection of the app's pool, all of them opened first (so none comes later without one)."""
    counted: collections.Counter[str] = collections.Counter()
    counting = False

    def log(record) -> None:
        if counting:
            counted[" ".join(record.query.split())[:90]] += 1

    held = [await pool.acquire() for _ in range(pool.get_max_size())]
    for conn in held:
        conn.add_query_logger(log)
    for conn in held:
        await pool.release(conn)
    await asyncio.sleep(0)                     # (the loggers are called soon after: the releases' own not counted)
    counting = True
    try:
        yield counted
        await asyncio.sleep(0)
    finally:
        counting = False


async def test_a_human_action_costs_at_most_three_statements(database_url, db_schema, pool):
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000))
    async with served(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
        players = [await new_user(client, f"p{i}") for i in range(4)]
        spectator = await new_user(client, "s")
        tid = await open_table(client, players, hands_policy="never")
        app.state.platform.feeds.poll = 3600.0              # only notifications wake the feed (no timed polls counted)
        audience = [(f"p{i}", h) for i, (_, h) in enumerate(players)] + [("s", spectator[1])]
        async with following(base, tid, audience) as (out, got):
            head = await stream_version(pool, tid)
            for name, _ in audience:
                await until_version(out[name], got[name], head)
            rng, ids, actions = random.Random(5), Ids(), 40
            async with counting_statements(app.state.platform.pool) as counted:
                for _ in range(actions):
                    # Whose turn it is, from the spectator's stream; the action, from that player's own stream.
                    public = out["s"][-1][2]
                    seat = public["deal"]["turn"]
                    mine = out[f"p{seat}"][-1][2]
                    r = await client.post(f"/tables/{tid}/commands", headers=players[seat][1],
                                          json={"command_id": ids(), "action": choose(mine["deal"]["legal_actions"], rng)})
                    assert r.status_code == 200, r.text
                    version = r.json()["version"]
                    for name, _ in audience:
                        await until_version(out[name], got[name], version)
                    assert out["s"][-1][2]["phase"] == "playing"
            total = sum(counted.values())
    per_action = total / actions
    assert per_action <= BUDGET, (per_action, counted.most_common())
    kinds = collections.Counter(k.split(" FROM ")[-1].split("(")[0] if k.startswith("SELECT") else k.split()[0]
                                for k in counted.elements())
    assert kinds["append_events_head"] == actions, kinds                # one append per action, nothing else
    reads = sum(n for k, n in counted.items() if k.startswith("SELECT position"))
    assert reads == 0, counted.most_common()      # no read: neither to decide nor to fan the append out


async def test_a_fold_behind_the_log_refuses_nothing_it_should_accept(database_url, db_schema, pool):
    url = schema_url(database_url, db_schema)
    here, there = (create_app(url, rate_limit=("second", 100_000)) for _ in range(2))
    async with served(here) as base, served(there) as base_there, \
            httpx.AsyncClient(base_url=base, timeout=30) as client, \
            httpx.AsyncClient(base_url=base_there, timeout=30) as other:
        players = [await new_user(client, f"p{i}") for i in range(4)]
        tid = await open_table(client, players, hands_policy="never")
        audience = [(f"p{i}", h) for i, (_, h) in enumerate(players)]
        async with following(base, tid, audience) as (out, got):
            head = await stream_version(pool, tid)
            for name, _ in audience:
                await until_version(out[name], got[name], head)
            # This process hears of nothing more: its feed's fold stays at ``head`` whatever is stored.
            feeds = here.state.platform.feeds
            await feeds.listener.stop()
            feeds.poll = 3600.0
            # A read it had under way when it stopped listening ends first (``current`` is None until then).
            for _ in range(500):
                if feeds.current(tid) is not None:
                    break
                await asyncio.sleep(0.01)
            assert feeds.current(tid).version == head

            async def seat_to_act() -> tuple[int, dict]:
                seen = (await other.get(f"/tables/{tid}/view", headers=players[0][1])).json()
                seat = seen["deal"]["turn"]
                mine = (await other.get(f"/tables/{tid}/view", headers=players[seat][1])).json()
                return seat, mine

            rng = random.Random(3)
            seat, mine = await seat_to_act()
            moved = {"command_id": "there-1", "action": choose(mine["deal"]["legal_actions"], rng)}
            r = await other.post(f"/tables/{tid}/commands", headers=players[seat][1], json=moved)
            assert r.status_code == 200, r.text
            stored = await stream_version(pool, tid)
            assert stored > head and feeds.current(tid).version == head     # the fold is behind

            # The same command sent here: a replay, known only from the log (the fold has not seen it).
            again = await client.post(f"/tables/{tid}/commands", headers=players[seat][1], json=moved)
            assert again.status_code == 200 and again.json()["replayed"] is True, again.text
            # The next seat, by the log (not yet by the fold), acts here at the version it saw: accepted.
            seat, mine = await seat_to_act()
            action = choose(mine["deal"]["legal_actions"], rng)
            r = await client.post(f"/tables/{tid}/commands", headers=players[seat][1],
                                  json={"command_id": "here-1", "action": action, "expected_version": stored})
            assert r.status_code == 200, r.text
            assert r.json()["version"] > stored
            after = await stream_version(pool, tid)
            # Refusals come from the log: a stale expected version, and a seat whose turn it is not.
            stale = await client.post(f"/tables/{tid}/commands", headers=players[seat][1],
                                      json={"command_id": "here-2", "action": action, "expected_version": stored})
            assert stale.status_code == 409 and stale.json()["rule"] == "stale_version", stale.text
            seat, mine = await seat_to_act()
            idle = (seat + 1) % 4
            wrong = await client.post(f"/tables/{tid}/commands", headers=players[idle][1],
                                      json={"command_id": "here-3", "action": choose(mine["deal"]["legal_actions"], rng)})
            assert wrong.status_code == 409 and wrong.json()["rule"] == "not_your_turn", wrong.text
            assert await stream_version(pool, tid) == after              # nothing stored by the refusals


async def test_a_handlers_dependencies_are_resolved_in_turn_in_the_requests_own_task(database_url, db_schema):
    # Litestar would run a handler's independent dependencies in an anyio task group, a task each, for
    # dependencies that are attribute lookups. Resolved in turn (``services.api.deps.InTurn``), each runs in
    # the request's own task: a route naming the app's dependencies and one that says which task it ran in
    # is answered from that task. A failing dependency (no token) still gives its problem document.
    def provide_task() -> asyncio.Task | None:
        return asyncio.current_task()

    @get("/in-turn", dependencies={"task": Provide(provide_task, sync_to_thread=False)})
    async def in_turn(user: Caller, tables: Tables, feeds: Feeds, access: Gate, task: NamedDependency[Any]) -> dict:
        return {"same_task": task is asyncio.current_task(), "user": user.user_id}

    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 100_000),
                     extra_routers=(Router("/probe", route_handlers=[in_turn]),))
    async with served(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
        uid, headers = await new_user(client, "p")
        r = await client.get("/probe/in-turn", headers=headers)
        assert r.status_code == 200, r.text
        assert r.json() == {"same_task": True, "user": uid}
        refused = await client.get("/probe/in-turn")
        assert refused.status_code == 401 and refused.json()["rule"] == "bad_token", refused.text
