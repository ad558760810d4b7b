"""Workers under test: the in-process broker with a real Dramatiq worker, on this test's PostgreSQL schema.

The test's own services (``plain_services``) have no worker hooks, like the API process: what moves a
championship on is only what the workers do.
"""

from __future__ import annotations

import asyncio
import datetime as dt

import dramatiq
import msgspec
import pytest
from dramatiq.asyncio import get_event_loop_thread

from domain.tournament import CreateChampionship, RegisterTeam, RoundSlot, Settings
from services.tokens import create_user
from services.championships import (
    ChampionshipService,
    RunSettings,
    championship_id_for,
)
from services.platform import Platform
from services.eventstore import Checkpoint
from services.workers.actors import Workers
from services.workers.broker import make_broker
from tests.api.conftest import schema_url
from tests.workers.helpers import add_users, in_process


def pytest_configure(config):
    # The database fixtures: one plugin for the whole run, loaded only where tests need a database.
    config.pluginmanager.import_plugin("tests.db_fixtures")


QUEUES = ("championships", "bots", "clocks")


class EnqueueCount(dramatiq.Middleware):
    """Counts enqueued messages, so that a quiet moment can be told from a race between two queues."""

    def __init__(self):
        self.count = 0

    def after_enqueue(self, broker, message, delay):
        self.count += 1


class Running:
    """A started worker (8 threads) on the stub broker, and a way to wait until all work has come to rest."""

    def __init__(self, url: str):
        self.broker, _ = make_broker("")
        self.enqueued = EnqueueCount()
        self.broker.add_middleware(self.enqueued)
        self.workers = Workers(self.broker, url, schedules=True)
        self.runtime = self.workers.runtime
        for q in QUEUES:
            self.broker.declare_queue(q)
        self.worker = dramatiq.Worker(self.broker, worker_threads=8)
        self.worker.start()
        self.stopped = False

    async def drain(self) -> None:
        """Wait until no queue holds a message, due or delayed, and nothing was enqueued meanwhile."""
        while True:
            before = self.enqueued.count
            for q in QUEUES:
                await asyncio.to_thread(self.broker.join, q, fail_fast=True)
            queues = [self.broker.queues[name] for q in QUEUES for name in (q, f"{q}.DQ")]
            if all(queue.unfinished_tasks == 0 for queue in queues) and self.enqueued.count == before:
                return

    async def projection_caught_up(self, pool) -> None:
        """Wait until the standings projection has committed every event in the log."""
        row = await pool.fetchrow("SELECT tx_id, position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1")
        await asyncio.wrap_future(self.workers.projections.caught_up(Checkpoint(row[0], row[1])))

    async def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        try:
            await asyncio.to_thread(get_event_loop_thread().run_coroutine, self.runtime.close())
        finally:
            await asyncio.to_thread(self.worker.stop)
            await self.runtime.close()


@pytest.fixture
async def running(database_url, db_schema):
    run = Running(schema_url(database_url, db_schema))
    try:
        yield run
    finally:
        await run.stop()


@pytest.fixture
async def plain_services(pool):
    """A championship service (and its tables) with no workers attached to their flow: what an API process has."""
    return (await Platform.on(pool)).championships


async def new_championship(svc: ChampionshipService, pool, name: str, *, round_1_at: dt.datetime | None = None,
                           run: RunSettings | None = None, **settings) -> str:
    """A championship created by a new organiser; with ``round_1_at``, its round 1 is scheduled then."""
    organiser, _ = await create_user(pool, f"organiser of {name}")
    schedule = (RoundSlot(1, round_1_at.isoformat()),) if round_1_at else ()
    cid = championship_id_for(organiser.user_id, f"create-{name}")
    s = Settings(name=name, schedule=schedule, **settings)
    await svc.execute(cid, f"create-{name}", lambda _: [CreateChampionship(cid, s)], actor=organiser.user_id,
                      new=True, metadata={"run": msgspec.to_builtins(run or RunSettings())})
    return cid


async def register_teams(svc: ChampionshipService, pool, cid: str, n: int, kind: str) -> dict[str, list]:
    """``n`` teams T1..Tn of two new users of ``kind``; returns team id -> [(user, token), (user, token)]."""
    teams = {}
    for k in range(1, n + 1):
        members = [await create_user(pool, f"T{k} player {p}", kind) for p in (1, 2)]
        team_id = f"T{k}"
        await svc.execute(cid, f"register-{team_id}",
                          lambda _, m=members, t=team_id: [RegisterTeam(t, (m[0][0].user_id, m[1][0].user_id))],
                          actor=members[0][0].user_id)
        teams[team_id] = members
    return teams


async def db_now(pool) -> dt.datetime:
    return await pool.fetchval("SELECT now()")


@pytest.fixture
async def rig(database_url, db_schema, pool):
    """Broker, actors and table service on this test's schema, the bot and human users added; the worker is
    started by the test."""
    await add_users(pool)
    async with in_process(schema_url(database_url, db_schema)) as rig:
        yield rig
