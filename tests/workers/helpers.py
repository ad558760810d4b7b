"""Shared helpers for worker tests: tables on a test schema, an in-process worker, waits with deadlines,
and the exactly-once invariants read back from a table's stream."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict

import asyncpg
import dramatiq
from dramatiq import Worker
from dramatiq.asyncio import get_event_loop_thread

from domain.baloot.profiles import SAUDI
from services.tables import TableOpened, TableService, stream_of
from services.eventstore import read_stream, verify_stream
from services.workers.actors import Workers
from services.workers.broker import make_broker
from services.workers.schedules import Schedules
from tests.api.conftest import schema_url

__all__ = ["schema_url"]

QUEUES = ("bots", "clocks")
BOT = "bot-user"
HUMAN = "human-user"


async def add_users(pool: asyncpg.Pool) -> None:
    """The users the tables seat: one bot account (all bot seats) and one human."""
    await pool.execute(
        "INSERT INTO users (user_id, name, kind) VALUES ($1, 'bot', 'bot'), "
        "($2, 'human', 'human') ON CONFLICT DO NOTHING", BOT, HUMAN)


def all_bots(table_id: str, level: str = "normal", profile=SAUDI) -> TableOpened:
    return TableOpened(table_id=table_id, seats=(BOT,) * 4, profile=profile, bots=(level,) * 4)


def human_at_seat_0(table_id: str, on_timeout: str, turn_seconds: float = 0.05, level: str = "normal"
                    ) -> TableOpened:
    return TableOpened(table_id=table_id, seats=(HUMAN, BOT, BOT, BOT), profile=SAUDI,
                       bots=(None, level, level, level), turn_seconds=turn_seconds, on_timeout=on_timeout)


class Failures(dramatiq.Middleware):
    """Remembers every exception an actor raised, so a test fails at once instead of waiting on retries."""

    def __init__(self):
        self.errors: list[tuple[str, BaseException]] = []

    def after_process_message(self, broker, message, *, result=None, exception=None):
        if exception is not None:
            self.errors.append((f"{message.actor_name}{message.args}", exception))


@contextlib.asynccontextmanager
async def in_process(database_url: str):
    """``InProcess`` workers on ``database_url``: their worker stopped (if the test started it) and their pool
    closed after."""
    rig = InProcess(database_url)
    try:
        yield rig
    finally:
        rig.stop()
        await rig.runtime.close()


class InProcess:
    """The in-process broker, the actors, and (once started) a dramatiq Worker with a short poll timeout."""

    def __init__(self, database_url: str, threads: int = 2):
        self.broker, self.where = make_broker("")
        self.failures = Failures()
        self.broker.add_middleware(self.failures)
        self.workers = Workers(self.broker, database_url)
        self.runtime = self.workers.runtime
        self.threads = threads
        self.worker: Worker | None = None

    async def tables(self) -> TableService:
        return await self.runtime.tables()

    def add_middleware(self, middleware: dramatiq.Middleware) -> None:
        self.broker.add_middleware(middleware)

    def run_schedules(self) -> None:
        """Tick the championships' schedules too, as `baloot worker` does (before ``start``: its queue is the
        worker's from the start)."""
        self.workers.schedules = Schedules(self.workers)

    def start(self) -> None:
        # worker_timeout: how long a consumer blocks before looking at its delayed messages (clocks).
        self.worker = Worker(self.broker, worker_threads=self.threads, worker_timeout=50)
        self.worker.start()

    def stop(self) -> None:
        """Stop the worker, closing the pool its event loop opened first (Worker.pause would cost seconds)."""
        if self.worker is None:
            return
        try:
            get_event_loop_thread().run_coroutine(self.runtime.close())
        finally:
            self.worker.stop()
            self.worker = None

    def queued(self, queue: str) -> int:
        """Messages waiting on ``queue`` and its delay queue."""
        return sum(self.broker.queues[q].qsize() for q in (queue, f"{queue}.DQ"))

    def flush(self) -> None:
        """Lose every queued message (what a broker that forgot its queues would do)."""
        for q in QUEUES:
            self.broker.flush(q)
            self.broker.flush(f"{q}.DQ")

    def check(self) -> None:
        if self.failures.errors:
            where, exc = self.failures.errors[0]
            raise AssertionError(f"{where} raised {exc!r}") from exc

    async def drain_until(self, svc: TableService, table_id: str, done, timeout: float = 60.0):
        """Drain the queues (bots, then clocks with their delayed messages) until ``done(table)``.

        Each round waits on the broker, not on the clock: a join returns once the queue and its delay queue
        are empty, and followups are enqueued before the message that caused them is acknowledged.
        """
        deadline = time.monotonic() + timeout
        while True:
            self.check()
            table = await svc.load(table_id)
            if done(table):
                return table
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"table {table_id} not done after {timeout}s: version {table.version}, "
                                     f"phase {table.game.phase}/{table.game.deal.phase}")
            for q in QUEUES:
                await asyncio.to_thread(self.broker.join, q, timeout=max(1, int(left * 1000)), fail_fast=True)


def ended(table) -> bool:
    return table.game.phase == "ended"


async def stream_rows(pool_or_url, table_id: str):
    if isinstance(pool_or_url, str):
        conn = await asyncpg.connect(pool_or_url)
        try:
            return await read_stream(conn, stream_of(table_id))
        finally:
            await conn.close()
    return await read_stream(pool_or_url, stream_of(table_id))


def commands_of(rows) -> dict[str, list[int]]:
    """Command id -> the versions of the events it stored."""
    out: dict[str, list[int]] = defaultdict(list)
    for r in rows:
        out[r.metadata.get("command_id", "")].append(r.version)
    return dict(out)


def assert_exactly_once(rows) -> dict[str, list[int]]:
    """The stream's versions are 1..n; each command stored one contiguous batch; a worker's command
    ``bot:v`` / ``clock:v`` was decided at version v, so its batch starts at v + 1 (one action per version)."""
    versions = [r.version for r in rows]
    assert versions == list(range(1, len(rows) + 1)), "versions are not contiguous"
    commands = commands_of(rows)
    for cid, vs in commands.items():
        assert vs == list(range(vs[0], vs[0] + len(vs))), f"command {cid} stored twice: versions {vs}"
        kind, _, at = cid.partition(":")
        if kind in ("bot", "clock", "review"):
            assert vs[0] == int(at) + 1, f"command {cid} stored at version {vs[0]}"
    return commands


async def assert_chain_holds(pool_or_url, table_id: str) -> None:
    if isinstance(pool_or_url, str):
        conn = await asyncpg.connect(pool_or_url)
        try:
            assert await verify_stream(conn, stream_of(table_id)) is None
        finally:
            await conn.close()
    else:
        assert await verify_stream(pool_or_url, stream_of(table_id)) is None
