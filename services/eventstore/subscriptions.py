"""Subscriptions to the global log and the projection runner.

A projection is a name, a handler and a reset:

    async def apply(conn, event):            # event: RecordedEvent
        if event.event_type == "card_played":
            await conn.execute("UPDATE table_stats SET cards = cards + 1 WHERE table_id = $1",
                               event.stream_id)

    standings = projection("standings", apply, reset=lambda conn: conn.execute("TRUNCATE table_stats"))

The runner calls the handler for each event inside a transaction that also moves the projection's
checkpoint, so a read model is changed exactly once per event whatever crashes.  Handlers must use only
`conn` (no commit of their own, no other connection) and be deterministic, so that a rebuild from zero
gives the same read model as live updates.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import asyncpg

from services.eventstore.listen import woken_within
from services.eventstore.store import (
    CHANNEL, START, Checkpoint, RecordedEvent, has_pending, notified_streams, read_all, read_streams,
)

log = logging.getLogger(__name__)


class Projection(Protocol):
    name: str

    async def handle(self, conn: asyncpg.Connection, event: RecordedEvent) -> None: ...

    async def reset(self, conn: asyncpg.Connection) -> None: ...


@dataclass(frozen=True)
class FunctionProjection:
    """A projection made of an `apply(conn, event)` coroutine and an optional `reset(conn)`."""

    name: str
    apply: Callable[[asyncpg.Connection, RecordedEvent], Awaitable[Any]]
    reset_read_model: Callable[[asyncpg.Connection], Awaitable[Any]] | None = None
    stream_prefix: str | None = None        # only these streams' events are read (filtered in SQL)
    # Optional: a whole batch at once, with the same effect as `apply` on each of its events in turn (a read
    # model whose row is rewritten per event writes it once per batch).
    apply_batch: Callable[[asyncpg.Connection, list[RecordedEvent]], Awaitable[Any]] | None = None
    event_types: tuple[str, ...] | None = None      # of those streams, only these kinds (filtered in SQL too)

    async def handle(self, conn: asyncpg.Connection, event: RecordedEvent) -> None:
        await self.apply(conn, event)

    async def reset(self, conn: asyncpg.Connection) -> None:
        if self.reset_read_model is not None:
            await self.reset_read_model(conn)


def projection(name: str, apply: Callable[[asyncpg.Connection, RecordedEvent], Awaitable[Any]],
               reset: Callable[[asyncpg.Connection], Awaitable[Any]] | None = None,
               stream_prefix: str | None = None,
               apply_batch: Callable[[asyncpg.Connection, list[RecordedEvent]], Awaitable[Any]] | None = None,
               event_types: tuple[str, ...] | None = None) -> FunctionProjection:
    """A projection from functions: `apply(conn, event)` and `reset(conn)` (empty the read model); with
    `stream_prefix` it is given only the events of the streams whose id starts with it (with `event_types`,
    only those kinds of them); with `apply_batch` a batch at once (a failing batch is applied again event by
    event, to find the event that fails)."""
    return FunctionProjection(name, apply, reset, stream_prefix, apply_batch, event_types)


class ProjectionFailed(Exception):
    """A handler raised: the projection stopped before `event`, its checkpoint left in place."""

    def __init__(self, name: str, event: RecordedEvent, cause: BaseException) -> None:
        self.name, self.event, self.cause = name, event, cause
        super().__init__(f"projection {name!r} stopped at {event.stream_id}@{event.version} "
                         f"(position {event.position}, {event.event_type}): {cause!r}")


class _Rollback(Exception):
    """Raised inside a transaction to roll it back after a handler failed."""


class _Wakeup:
    """LISTEN on the events channel; `wait` returns on a notification or after `timeout`. With `prefix`, a
    notification that names streams, none of them starting with it, does not wake (a projection of
    championships is not woken by every card played); one that names none wakes."""

    def __init__(self, prefix: str | None = None) -> None:
        self.event = asyncio.Event()
        self.prefix = prefix

    def __call__(self, _conn: object = None, _pid: object = None, _channel: object = None, payload: str = "") -> None:
        named = notified_streams(payload) if self.prefix else None
        if named is None or any(s.startswith(self.prefix) for s in named):
            self.event.set()

    async def start(self, conn: asyncpg.Connection) -> None:
        await conn.add_listener(CHANNEL, self)

    async def stop(self, conn: asyncpg.Connection) -> None:
        if not conn.is_closed():
            await conn.remove_listener(CHANNEL, self)

    async def wait(self, timeout: float) -> None:
        await woken_within(self.event, timeout)


async def _idle_wait(conn: asyncpg.Connection, wakeup: _Wakeup, after: Checkpoint,
                     poll_interval: float, delay: float) -> float:
    """Wait for new events; return the next back-off delay.

    Committed events held back by an older running transaction come through without a notification
    (the older one may append nothing, or roll back), so they are polled for with a short back-off.
    """
    if await has_pending(conn, after):
        await wakeup.wait(delay)
        return min(delay * 2, poll_interval)
    await wakeup.wait(poll_interval)
    return 0.005


async def subscribe(pool: asyncpg.Pool, after: Checkpoint = START, *, batch_size: int = 500,
                    poll_interval: float = 1.0) -> AsyncIterator[RecordedEvent]:
    """Every event after `after`, in global order: the stored ones, then live ones as they commit.

    Holds one pooled connection while iterated; close it with `aclose()` (or break out of the loop).
    """
    async with pool.acquire() as conn:
        wakeup = _Wakeup()
        await wakeup.start(conn)
        try:
            delay = 0.005
            while True:
                wakeup.event.clear()
                batch = await read_all(conn, after, batch_size)
                for event in batch:
                    yield event
                    after = event.checkpoint
                if batch:
                    delay = 0.005
                else:
                    delay = await _idle_wait(conn, wakeup, after, poll_interval, delay)
        finally:
            await wakeup.stop(conn)


def _lock_sql(fn: str) -> str:
    # The key includes the schema so that projections of different schemas (tests) never collide.
    return f"SELECT {fn}(hashtext('baloot-arena/projection/' || current_schema() || '/' || $1))"


_ENSURE_ROW = "INSERT INTO projections (name) VALUES ($1) ON CONFLICT (name) DO NOTHING"
_LOAD = "SELECT tx_id, position FROM projections WHERE name = $1"
# A runner that only passes over events not its own stores its checkpoint at most this often (seconds): each
# store is a transaction and a WAL flush, once for every few events of a busy log otherwise.
SKIPPED_SAVE_SECONDS = 1.0
_SAVE = """
UPDATE projections SET tx_id = $2, position = $3, status = 'running', error = NULL,
       failed_position = NULL, updated_at = now()
 WHERE name = $1 AND tx_id = $4 AND position = $5"""
_FAIL = """
UPDATE projections SET status = 'failed', error = $2, failed_position = $3, updated_at = now()
 WHERE name = $1"""


async def projection_state(db: asyncpg.Pool | asyncpg.Connection, name: str) -> asyncpg.Record | None:
    """The projection's row: name, tx_id, position, status ('running' or 'failed'), error, failed_position."""
    return await db.fetchrow("SELECT * FROM projections WHERE name = $1", name)


class ProjectionRunner:
    """Runs one projection: takes its advisory lock, catches up from its checkpoint, then follows live.

    Only one runner per projection is active at a time; others wait for the lock (standby).
    `checkpoint` is the last committed one; `wait_until(pred)` lets callers wait for progress.
    """

    def __init__(self, pool: asyncpg.Pool, projection: Projection, *, batch_size: int = 500,
                 poll_interval: float = 1.0, min_interval: float = 0.0) -> None:
        self.pool, self.projection = pool, projection
        self.batch_size, self.poll_interval = batch_size, poll_interval
        # Following live, at least this long after a read that found events (its own, or others' it passed
        # over) before the next: a lag that lets events gather into one batch (a read model rewritten per
        # batch costs the same for one event as for hundreds; a read costs the same for one card played as
        # for a thousand). Cut short while someone waits for the runner (``wait_until``).
        self.min_interval = min_interval
        self._waiters = 0
        self._hurry = asyncio.Event()            # set while someone waits for progress: no lull then
        self.checkpoint: Checkpoint | None = None
        self.saved: Checkpoint | None = None     # the checkpoint as stored (``checkpoint`` may be ahead of it)
        self._saved_at = 0.0
        self.holds_lock = False
        self.reads = 0                           # reads of the log made (one a step): what a lull saves
        self._changed = asyncio.Condition()

    async def run(self) -> None:
        """Run until cancelled; raises ProjectionFailed when a handler fails."""
        await self._session(follow=True)

    async def catch_up(self) -> Checkpoint:
        """Apply every event committed before the call, then return the checkpoint reached. The log is read
        below its visibility horizon (``store.read_all``): a transaction still open anywhere on the server (in
        another database too) holds the horizon back, so the runner reads again, a moment later each time,
        until the horizon has passed the last event committed when it was called."""
        last = await self.pool.fetchrow("SELECT tx_id, position FROM events ORDER BY tx_id DESC, position DESC "
                                        "LIMIT 1")
        pause = 0.005
        while True:
            await self._session(follow=False)
            assert self.checkpoint is not None
            if last is None or self.checkpoint >= Checkpoint(int(last[0]), last[1]):
                return self.checkpoint
            await asyncio.sleep(pause)          # an open transaction elsewhere: it ends, or the horizon stays
            pause = min(2 * pause, 0.2)

    async def rebuild(self) -> Checkpoint:
        """Empty the read model, start again from zero and catch up."""
        await self._session(follow=False, reset=True)
        assert self.checkpoint is not None
        return self.checkpoint

    async def wait_until(self, predicate: Callable[[ProjectionRunner], bool]) -> None:
        """Wait until `predicate(self)` holds (checked after each committed batch and lock change). Meanwhile
        the runner reads without its lull (``min_interval``): whoever waits wants the events now."""
        self._waiters += 1
        self._hurry.set()
        try:
            async with self._changed:
                await self._changed.wait_for(lambda: predicate(self))
        finally:
            self._waiters -= 1
            if not self._waiters:
                self._hurry.clear()

    async def _lull(self) -> None:
        """``min_interval`` seconds (cut short while someone waits for progress): events gather meanwhile."""
        if self.min_interval:
            await woken_within(self._hurry, self.min_interval)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _session(self, *, follow: bool, reset: bool = False) -> None:
        name = self.projection.name
        async with self.pool.acquire() as conn:
            while not await conn.fetchval(_lock_sql("pg_try_advisory_lock"), name):
                await asyncio.sleep(self.poll_interval)  # standby: another runner holds the projection
            self.holds_lock = True
            wakeup = _Wakeup(getattr(self.projection, "stream_prefix", None))
            try:
                await wakeup.start(conn)
                await conn.execute(_ENSURE_ROW, name)
                if reset:
                    async with conn.transaction():
                        await self.projection.reset(conn)
                        await conn.execute("UPDATE projections SET tx_id = '0', position = 0, status = 'running',"
                                           " error = NULL, failed_position = NULL, updated_at = now()"
                                           " WHERE name = $1", name)
                row = await conn.fetchrow(_LOAD, name)
                self.checkpoint = self.saved = Checkpoint(row["tx_id"], row["position"])
                self._saved_at = time.monotonic()
                await self._notify()
                delay = 0.005
                while True:
                    wakeup.event.clear()
                    before = self.checkpoint
                    applied = await self._step(conn)
                    if applied == self.batch_size:
                        continue
                    if not follow:
                        await self._store_passed_over(conn)     # where the catch-up got to
                        return
                    # Events came (its own, or only others' passed over, which with a lull counts alike: a
                    # projection of a few kinds of table events would otherwise read at every card played).
                    if applied or (self.min_interval and self.checkpoint != before):
                        delay = 0.005
                        await self._lull()
                    else:
                        delay = await _idle_wait(conn, wakeup, self.checkpoint, self.poll_interval, delay)
            finally:
                self.holds_lock = False
                if not conn.is_closed():
                    try:
                        await wakeup.stop(conn)
                        await conn.fetchval(_lock_sql("pg_advisory_unlock"), name)
                    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                        conn.terminate()  # the lock must not outlive the runner in a pooled connection
                await self._notify()

    async def _step(self, conn: asyncpg.Connection) -> int:
        assert self.checkpoint is not None
        self.reads += 1
        prefix = getattr(self.projection, "stream_prefix", None)
        if prefix is None:
            batch = await read_all(conn, self.checkpoint, self.batch_size)
            end = batch[-1].checkpoint if batch else self.checkpoint
        else:                   # the other streams' events are skipped in SQL; the checkpoint passes them
            batch, end = await read_streams(conn, prefix, self.checkpoint, self.batch_size,
                                            getattr(self.projection, "event_types", None))
        if not batch:
            # Only other streams' (or kinds') events passed over, or none: the checkpoint moves on here, and is
            # stored with the next batch, or once a while, idle included (a runner taking over after a crash
            # passes them over again).
            if end != self.checkpoint:
                self.checkpoint = end
                await self._notify()
            if time.monotonic() - self._saved_at >= SKIPPED_SAVE_SECONDS:
                await self._store_passed_over(conn)
            return 0
        failed = await self._apply(conn, batch, end)
        if failed is not None:
            await self._fail(conn, batch, *failed)
        await self._notify()
        return len(batch)

    async def _apply(self, conn: asyncpg.Connection, batch: list[RecordedEvent],
                     end: Checkpoint | None = None) -> tuple[int, Exception] | None:
        """Apply `batch` and move the checkpoint (to `end`, default the batch's last event) in one
        transaction; on a handler error, its index and error."""
        assert self.saved is not None
        before = self.saved
        after = end if end is not None else batch[-1].checkpoint
        failure: tuple[int, Exception] | None = None
        apply_batch = getattr(self.projection, "apply_batch", None)
        if apply_batch is not None and batch:
            try:
                async with conn.transaction():
                    await apply_batch(conn, batch)
                    await self._save(conn, before, after)
                self._stored(after)
                return None
            except Exception:
                if conn.is_closed():
                    raise
                # Event by event below: the failing event is found and the good prefix kept.
        try:
            async with conn.transaction():
                for index, event in enumerate(batch):
                    try:
                        await self.projection.handle(conn, event)
                    except Exception as exc:
                        if conn.is_closed():
                            raise  # a crash, not a poison event: nothing committed, a restart resumes here
                        failure = (index, exc)
                        raise _Rollback from exc
                await self._save(conn, before, after)
        except _Rollback:
            return failure
        self._stored(after)
        return None

    async def _store_passed_over(self, conn: asyncpg.Connection) -> None:
        """Store the checkpoint moved on in memory past events not this projection's, if it is ahead of the
        stored one (no events applied: nothing can fail but the save)."""
        if self.checkpoint != self.saved:
            await self._apply(conn, [], self.checkpoint)
            await self._notify()

    def _stored(self, checkpoint: Checkpoint) -> None:
        self.checkpoint = self.saved = checkpoint
        self._saved_at = time.monotonic()

    async def _save(self, conn: asyncpg.Connection, before: Checkpoint, after: Checkpoint) -> None:
        name = self.projection.name
        moved = await conn.execute(_SAVE, name, after.tx_id, after.position, before.tx_id, before.position)
        if moved != "UPDATE 1":
            raise RuntimeError(f"projection {name!r}: its checkpoint was moved by someone else")

    async def _fail(self, conn: asyncpg.Connection, batch: list[RecordedEvent], index: int, exc: Exception) -> None:
        if index:
            again = await self._apply(conn, batch[:index])  # keep the good prefix of the batch
            if again is not None:
                index, exc = again
        event = batch[index]
        await conn.execute(_FAIL, self.projection.name, f"{type(exc).__name__}: {exc}", event.position)
        log.error("projection %s stopped at %s@%s (position %s): %r", self.projection.name,
                  event.stream_id, event.version, event.position, exc)
        await self._notify()
        raise ProjectionFailed(self.projection.name, event, exc) from exc


async def run_projection(pool: asyncpg.Pool, projection: Projection, *, batch_size: int = 500,
                         poll_interval: float = 1.0) -> None:
    """Run `projection` until cancelled (see ProjectionRunner)."""
    await ProjectionRunner(pool, projection, batch_size=batch_size, poll_interval=poll_interval).run()


async def rebuild_projection(pool: asyncpg.Pool, projection: Projection) -> Checkpoint:
    """Reset `projection`'s read model and checkpoint, replay the whole log, return the checkpoint."""
    return await ProjectionRunner(pool, projection).rebuild()
