"""The projection runner as a long-running worker: the standings read model, ``standings_rm``.

Each championship's row holds the fold of ``projections.standings`` over its stream (``state``, to go on
from), the table it gives (``standings``, best first) and the stream version folded. The runner writes it
in the transaction that moves its checkpoint, so each event changes the read model exactly once, and a
rebuild from the log (``rebuild_projection``) gives the same rows.

``ProjectionWorker`` is a Dramatiq middleware: after a worker process boots it runs the runner on the
process's event loop (a standby when another process holds the projection), restarting it after a
failure, and stops it before the worker shuts down.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading

import asyncpg
import dramatiq
import msgspec
from dramatiq.asyncio import get_event_loop_thread

from domain.tournament.persistent import PMap, PVec
from domain.tournament.tiebreaks import TeamRecord
from projections import standings as standings_projection
from services.championships import CODEC
from services.eventstore.migrations import migrate
from services.eventstore import (
    Checkpoint,
    ProjectionFailed,
    ProjectionRunner,
    RecordedEvent,
    projection,
)

log = logging.getLogger("baloot.workers")

NAME = "standings_rm"
PREFIX = "championship-"
RESTART_SECONDS = 5.0
# The standings lag up to this much behind, so that results gather into one write: each write computes the
# whole table (tie-breaks of every team), on the event loop the bots share; with 10,240 teams a write a
# second took a third of a worker's time.
MIN_INTERVAL = 5.0


class StoredStandings(msgspec.Struct, frozen=True):
    """``Standings`` as JSON: records sorted by team, so equal states store equal documents."""

    format: str
    seeds: list[str]
    records: list[TeamRecord]


def dump_state(state: standings_projection.Standings) -> bytes:
    records = sorted((r for _, r in state.records.items()), key=lambda r: r.team_id)
    return msgspec.json.encode(StoredStandings(state.format, list(state.seeds), records))


def load_state(text: str | bytes) -> standings_projection.Standings:
    s = msgspec.json.decode(text, type=StoredStandings)
    return standings_projection.Standings(s.format, PVec(s.seeds), PMap((r.team_id, r) for r in s.records))


def dump_table(state: standings_projection.Standings) -> bytes:
    return msgspec.json.encode(standings_projection.table(state))


async def apply_standings(conn: asyncpg.Connection, event: RecordedEvent) -> None:
    """Fold a championship event into its row (events of other streams are not ours)."""
    if not event.stream_id.startswith(PREFIX):
        return
    championship_id = event.stream_id[len(PREFIX):]
    row = await conn.fetchrow("SELECT version, state FROM standings_rm WHERE championship_id = $1", championship_id)
    if row is not None and row["version"] >= event.version:
        return
    state = load_state(row["state"]) if row is not None else standings_projection.initial()
    state = standings_projection.evolve(state, CODEC.decode(event))
    await conn.execute(
        "INSERT INTO standings_rm (championship_id, version, state, standings) VALUES ($1, $2, $3::jsonb, $4::jsonb) "
        "ON CONFLICT (championship_id) DO UPDATE SET version = $2, state = $3::jsonb, standings = $4::jsonb",
        championship_id, event.version, dump_state(state).decode(), dump_table(state).decode())


async def apply_standings_batch(conn: asyncpg.Connection, events: list[RecordedEvent]) -> None:
    """The batch's events folded per championship and each row written once (as ``apply_standings`` on each
    event in turn would leave it): the standings table is computed once per batch, not per event."""
    by_championship: dict[str, list[RecordedEvent]] = {}
    for event in events:
        if event.stream_id.startswith(PREFIX):
            by_championship.setdefault(event.stream_id[len(PREFIX):], []).append(event)
    for championship_id, evs in by_championship.items():
        row = await conn.fetchrow("SELECT version, state FROM standings_rm WHERE championship_id = $1",
                                  championship_id)
        version = row["version"] if row is not None else 0
        new = [e for e in evs if e.version > version]
        if not new:
            continue
        state = load_state(row["state"]) if row is not None else standings_projection.initial()
        for e in new:
            state = standings_projection.evolve(state, CODEC.decode(e))
        await conn.execute(
            "INSERT INTO standings_rm (championship_id, version, state, standings) VALUES ($1, $2, $3::jsonb, "
            "$4::jsonb) ON CONFLICT (championship_id) DO UPDATE SET version = $2, state = $3::jsonb, "
            "standings = $4::jsonb", championship_id, new[-1].version, dump_state(state).decode(),
            dump_table(state).decode())


async def reset_standings(conn: asyncpg.Connection) -> None:
    await conn.execute("TRUNCATE standings_rm")


def standings_read_model():
    """The projection (for ``ProjectionRunner``, ``run_projection`` and ``rebuild_projection``)."""
    return projection(NAME, apply_standings, reset_standings, stream_prefix=PREFIX,
                      apply_batch=apply_standings_batch)


class ProjectionWorker(dramatiq.Middleware):
    """Runs the read models' projections (the standings; the daily deal's, ``services/daily/projection``; the
    ratings of each game, ``services/ratings``) in
    each worker process that consumes the "projections" queue (all, by default), on the process's event loop:
    each its own runner, restarted after a failure."""

    def __init__(self, database_url: str, poll_interval: float = 1.0, read_models=None):
        from services.daily.projection import daily_read_model
        from services.fairplay.projection import fairplay_read_model
        from services.ratings import READ_MODELS as RATINGS
        from services.webhooks.outbox import webhooks_read_model

        self.database_url = database_url
        self.read_models = read_models or (standings_read_model, daily_read_model, *RATINGS, webhooks_read_model,
                                             fairplay_read_model)
        self.poll_interval = poll_interval
        self.runners: dict[str, ProjectionRunner] = {}
        self._future: concurrent.futures.Future | None = None
        self._ready: asyncio.Event | None = None
        self._stopped = threading.Event()
        self.last_failure: str | None = None
        self._failed: set[ProjectionRunner] = set()

    def after_worker_boot(self, broker, worker):
        only = getattr(worker, "consumer_whitelist", None)      # `--queues`: None means every queue
        if only and "projections" not in only:
            return
        self._ready = None
        self._stopped.clear()
        self._future = asyncio.run_coroutine_threadsafe(self._run(), get_event_loop_thread().loop)

    def before_worker_shutdown(self, broker, worker):
        future = self._future
        if future is None:
            return
        future.cancel()             # cancels the task on the loop (still running: AsyncIO stops it after us)
        if not self._stopped.wait(timeout=5):
            log.warning("projections: not stopped within 5 s of shutdown")
        self._future = None

    async def _run(self) -> None:
        self._ready = asyncio.Event()
        pool = await asyncpg.create_pool(self.database_url, min_size=1, max_size=1 + len(self.read_models))
        try:
            await asyncio.gather(*(self._keep_running(pool, make) for make in self.read_models))
        finally:
            try:
                await pool.close()
            finally:
                self._stopped.set()

    async def _keep_running(self, pool: asyncpg.Pool, make_read_model) -> None:
        while True:
            runner = ProjectionRunner(pool, make_read_model(), poll_interval=self.poll_interval,
                                      min_interval=MIN_INTERVAL)
            self.runners[runner.projection.name] = runner
            if len(self.runners) == len(self.read_models):
                self._ready.set()
            try:
                await migrate(pool)      # a fresh database: the runner's tables may not exist yet
                await runner.run()
            except ProjectionFailed as exc:
                self.last_failure = str(exc)
                self._failed.add(runner)
                log.error("projection %s stopped: %s; restarting in %ss", runner.projection.name, exc,
                          RESTART_SECONDS)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                log.warning("projection %s lost the database (%r); restarting in %ss", runner.projection.name,
                            exc, RESTART_SECONDS)
            await asyncio.sleep(RESTART_SECONDS)

    def caught_up(self, checkpoint: Checkpoint) -> concurrent.futures.Future:
        """A future done once every runner has committed ``checkpoint`` (for tests and status)."""

        async def wait() -> Checkpoint:
            if self._ready is None:         # _run was scheduled at boot, before any caller could ask
                raise RuntimeError("the projections are not running in this process")
            await self._ready.wait()
            for runner in list(self.runners.values()):
                await runner.wait_until(lambda r: (r.checkpoint is not None and r.checkpoint >= checkpoint)
                                        or r in self._failed)
                if runner.checkpoint is None or runner.checkpoint < checkpoint:
                    raise RuntimeError(f"the projection {runner.projection.name} stopped: {self.last_failure}")
            return checkpoint

        return asyncio.run_coroutine_threadsafe(wait(), get_event_loop_thread().loop)
