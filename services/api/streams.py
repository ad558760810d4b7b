"""The live streams (Server-Sent Events): what wakes them, and a cap on those each user holds open at once.

Every stream wakes on each append and renders a view, so one client holding thousands slowed every
command. A stream takes a slot before its first byte (the next one is refused with 429
``too_many_streams``) and gives it back once: when the response is over (Litestar runs the response's
background task after the body, also when the client disconnected), when the stream ends or fails, or, if
the response never ran, when its generator is collected.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import weakref
from collections.abc import AsyncIterator
from typing import NamedTuple

import asyncpg
from litestar.background_tasks import BackgroundTask

from services.api.limits import RateLimited
from services.eventstore import CHANNEL, notified_streams, read_stream
from services.tables import fold_each, stored_rows, stream_of

DEFAULT_MAX_STREAMS = 8

log = logging.getLogger("baloot.api")


class Notifier:
    """Wakes waiters when a stream is appended to (LISTEN/NOTIFY); waiting also times out (polling fallback).

    A notification naming streams wakes only their waiters (else every append woke every open stream, each
    reading its table: cost per action grew with the streams open); one naming none wakes all. Bounded:
    past ``MAX_WAITING`` entries (streams followed and not appended to since) a notification wakes all and
    empties ``_events``; a spurious wake-up only costs its stream one read.
    """

    RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0)      # seconds between attempts; the last one repeats
    MAX_WAITING = 10_000

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}
        self._follows: dict[str, Wake] = {}          # streams followed for good (the live feeds')
        self._conn: asyncpg.Connection | None = None
        self._url: str | None = None
        self._reconnecting: asyncio.Task | None = None
        self._stopped = False

    async def start(self, url: str) -> None:
        self._url, self._stopped = url, False
        await self._listen()

    async def _listen(self) -> None:
        conn = await asyncpg.connect(self._url)
        conn.add_termination_listener(self._on_lost)
        await conn.add_listener(CHANNEL, self._on_notify)
        self._conn = conn

    def _on_lost(self, _conn) -> None:
        """The LISTEN connection died (PostgreSQL restarted): listen again in the background."""
        if not self._stopped and (self._reconnecting is None or self._reconnecting.done()):
            self._reconnecting = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        attempt = 0
        while not self._stopped:
            await asyncio.sleep(self.RECONNECT_DELAYS[min(attempt, len(self.RECONNECT_DELAYS) - 1)])
            try:
                await self._listen()
            except (OSError, asyncio.TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                attempt += 1
                log.warning("LISTEN connection: reconnect attempt %d failed: %s", attempt, exc)
                continue
            log.info("LISTEN connection: reconnected after %d failed attempts", attempt)
            self._on_notify(None, 0, CHANNEL, "")      # appends made while away: every waiter reads again
            return

    @property
    def listening(self) -> bool:
        return self._conn is not None and not self._conn.is_closed()

    async def stop(self) -> None:
        self._stopped = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reconnecting
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.close()

    def _on_notify(self, _conn, _pid, _channel, payload: str) -> None:
        named = notified_streams(payload)
        if named is not None and len(self._events) <= self.MAX_WAITING:     # the streams appended to
            for stream, version in named.items():
                event = self._events.pop(stream, None)
                if event is not None:
                    event.set()
                wake = self._follows.get(stream)
                if wake is not None:
                    wake.note(version)
            return
        events, self._events = self._events, {}
        for event in events.values():
            event.set()
        for wake in self._follows.values():
            wake.note(None)

    def waiter(self, stream: str) -> asyncio.Event:
        """Take this before reading, then wait on it: a notification in between is not lost."""
        event = self._events.get(stream)
        if event is None:
            event = self._events[stream] = asyncio.Event()
        return event

    def follow(self, stream: str) -> Wake:
        """A lasting waiter for ``stream`` (one per stream): every notification of it sets it, with the
        version it names, until ``unfollow``; ``Wake.take`` clears it."""
        wake = self._follows.get(stream)
        if wake is None:
            wake = self._follows[stream] = Wake()
        return wake

    def unfollow(self, stream: str, wake: Wake) -> None:
        if self._follows.get(stream) is wake:
            del self._follows[stream]

    async def wait(self, event: asyncio.Event, timeout: float) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)


class Wake(asyncio.Event):
    """A followed stream's notifications since they were last taken, and the highest version they named."""

    def __init__(self) -> None:
        super().__init__()
        self.version: int | None = 0          # None: a notification did not say (read to know)

    def note(self, version: int | None) -> None:
        self.version = None if version is None or self.version is None else max(self.version, version)
        self.set()

    def take(self) -> tuple[bool, int | None]:
        """Whether a notification came since the last take, and the version named; clears both."""
        notified, version = self.is_set(), self.version
        self.clear()
        self.version = 0
        return notified, version


class StreamSlots:
    def __init__(self, per_user: int | None = None):
        self.per_user = per_user if per_user is not None else int(
            os.environ.get("BALOOT_MAX_STREAMS_PER_USER", DEFAULT_MAX_STREAMS))
        self._open: dict[str, int] = {}          # user id -> streams open; a user at 0 has no entry
        self._waiters: set[asyncio.Event] = set()
        self._loop: asyncio.AbstractEventLoop | None = None

    def open(self, user_id: str) -> int:
        return self._open.get(user_id, 0)

    def take(self, user_id: str) -> Slot:
        """A slot for one stream of ``user_id``, or a 429 problem when all are in use."""
        self._loop = asyncio.get_running_loop()
        n = self._open.get(user_id, 0)
        if n >= self.per_user:
            raise RateLimited("too_many_streams", f"you already follow {n} live streams, the most one user may "
                                                  "hold open; close one first", 1)
        self._open[user_id] = n + 1
        return Slot(self, user_id)

    def _give_back(self, user_id: str) -> None:
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is not None and running is not loop and loop.is_running():
            loop.call_soon_threadsafe(self._give_back_here, user_id)   # collected in another thread
        else:
            self._give_back_here(user_id)

    def _give_back_here(self, user_id: str) -> None:
        n = self._open.get(user_id, 0) - 1
        if n > 0:
            self._open[user_id] = n
        else:
            self._open.pop(user_id, None)
        for waiter in self._waiters:
            waiter.set()

    async def wait_until(self, user_id: str, at_most: int) -> None:
        """Until ``user_id`` holds at most ``at_most`` streams (for tests and shutdown)."""
        while self.open(user_id) > at_most:
            changed = asyncio.Event()
            self._waiters.add(changed)
            try:
                await changed.wait()
            finally:
                self._waiters.discard(changed)


class Slot:
    def __init__(self, slots: StreamSlots, user_id: str):
        self._slots, self._user_id = slots, user_id
        self._held = True

    def release(self) -> None:
        if self._held:
            self._held = False
            self._slots._give_back(self._user_id)

    async def _release(self) -> None:
        self.release()

    def when_sent(self) -> BackgroundTask:
        """The response's background task: gives the slot back when the response is over."""
        return BackgroundTask(self._release)

    def hold(self, messages: AsyncIterator) -> AsyncIterator:
        """``messages``, with this slot given back when they end, fail or are abandoned."""

        async def held():
            try:
                async for message in messages:
                    yield message
            finally:
                self.release()
                aclose = getattr(messages, "aclose", None)
                if aclose is not None:
                    await aclose()

        stream = held()
        weakref.finalize(stream, self.release)      # never iterated at all: given back when collected
        return stream


class FeedEntry(NamedTuple):
    """One stored row of a followed table, folded: its version, when it was stored, the table after it, and
    its views as rendered so far (by seat; None: a spectator's), each rendered once for all who see it."""

    version: int
    recorded_at: object
    state: object
    views: dict

    def view(self, seat: int | None, render) -> str:
        text = self.views.get(seat)
        if text is None:
            text = self.views[seat] = render(self.state, seat)
        return text


class TableFeeds:
    """One shared reader per table followed in this process: it reads each append once and folds it once.

    Every follower used to read and fold the stream itself on each wake-up (a table's 4 players and its
    spectators: that many reads per action); now the feed's reader does, and each follower only renders its
    own view from the folded states (a view seen by several, a spectator's, is rendered once). An append
    made by this process reaches its feed folded as it was decided, and its notification, which names the
    version it reached, then costs no read. A feed keeps the states since its slowest follower's cursor and
    is dropped with its last follower. Its head is this process's freshest fold of the table: ``current``.
    """

    def __init__(self, tables, notifier: Notifier, poll: float = 5.0) -> None:
        self.tables, self.notifier, self.poll = tables, notifier, poll
        self._feeds: dict[str, TableFeed] = {}
        tables.followers = self

    def subscribe(self, table_id: str, table) -> Subscription:
        """A cursor on ``table_id``'s feed at its head; ``table`` (the table as just loaded) starts a new feed."""
        feed = self._feeds.get(table_id)
        if feed is None or feed.failed is not None:
            feed = self._feeds[table_id] = TableFeed(self, table_id, table)
        return feed.subscribe()

    def follows(self, table_id: str) -> bool:
        return table_id in self._feeds

    def appended(self, table_id: str, stored: list) -> None:
        """This process appended ``stored`` ((version, recorded_at, event, metadata)) to the table: its feed,
        if it is right before them, takes them without reading them back."""
        feed = self._feeds.get(table_id)
        if feed is not None and stored and feed.failed is None and stored[0][0] == feed.head + 1:
            feed.take(fold_each(feed.state, stored, self.tables.deal_seed))

    def current(self, table_id: str):
        """The table as this process's feed of it has it, when nothing stored since is known to be missing
        from it (no notification waiting, no read under way); else None. It may still be behind an append
        whose notification is on its way: use it where the append's expected version guards."""
        feed = self._feeds.get(table_id)
        return feed.state if feed is not None and feed.up_to_date else None

    def _drop(self, feed: TableFeed) -> None:
        if self._feeds.get(feed.table_id) is feed:
            del self._feeds[feed.table_id]

    def following(self) -> int:
        """How many tables this process reads for its followers."""
        return len(self._feeds)

    async def stop(self) -> None:
        for feed in list(self._feeds.values()):
            await feed.stop()
        self._feeds.clear()


class TableFeed:
    """The reader of one table: wakes on its stream's notifications (or every ``poll`` seconds), reads the
    rows after its head once (none when the notification names a version it has), folds each once and hands
    the states to its subscribers."""

    def __init__(self, feeds: TableFeeds, table_id: str, table) -> None:
        self.feeds, self.table_id, self.stream = feeds, table_id, stream_of(table_id)
        self.state = table                     # the table at the feed's head
        self.history: list[FeedEntry] = []     # the states after the slowest subscriber's cursor, in order
        self.subscribers: set[Subscription] = set()
        self.failed: BaseException | None = None
        self._changed = asyncio.Event()
        self._reader: asyncio.Task | None = None
        self._wake = feeds.notifier.follow(self.stream)
        self._reading = False

    @property
    def head(self) -> int:
        return self.state.version

    @property
    def over(self) -> bool:
        return self.state.game.phase == "ended" or self.state.cancelled

    @property
    def up_to_date(self) -> bool:
        wake = self._wake
        missing = wake.is_set() and (wake.version is None or wake.version > self.head)
        return self.failed is None and self._reader is not None and not self._reading and not missing

    def subscribe(self) -> Subscription:
        sub = Subscription(self, self.head, self.state)
        self.subscribers.add(sub)
        if self._reader is None and not self.over:
            self._reader = asyncio.get_running_loop().create_task(self._read_loop())
        return sub

    def _leave(self, sub: Subscription) -> None:
        self.subscribers.discard(sub)
        if not self.subscribers:
            self.feeds._drop(self)
            self.feeds.notifier.unfollow(self.stream, self._wake)
            if self._reader is not None:
                self._reader.cancel()
        else:
            self._trim()

    def _trim(self) -> None:
        slowest = min((s.cursor for s in self.subscribers), default=self.head)
        keep = next((i for i, e in enumerate(self.history) if e.version > slowest), len(self.history))
        if keep:
            del self.history[:keep]

    def take(self, folded: list) -> None:
        """The states after the head ((version, recorded_at, table), in order) into the history."""
        self.history.extend(FeedEntry(v, at, state, {}) for v, at, state in folded)
        self.state = folded[-1][2]
        self.feeds.tables.remember(self.table_id, self.state)
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def _read_loop(self) -> None:
        tables, notifier = self.feeds.tables, self.feeds.notifier
        try:
            read = True
            while not self.over:
                if read:
                    self._reading = True
                    try:
                        rows = await read_stream(tables.pool, self.stream, self.head + 1)
                    finally:
                        self._reading = False
                    rows = [r for r in rows if r.version > self.head]   # this process's own append may have come
                    if rows:
                        self.take(fold_each(self.state, stored_rows(rows), tables.deal_seed))
                    if self.over:
                        break
                await notifier.wait(self._wake, timeout=self.feeds.poll)
                notified, version = self._wake.take()
                # Read on a timeout (the poll), and on a notification of a version not folded here yet.
                read = not notified or version is None or version > self.head
        except Exception as exc:                             # the database went away: its followers fail
            log.warning("live feed of %s: read failed: %s", self.table_id, exc)
            self.failed = exc
            self.feeds._drop(self)
            self.feeds.notifier.unfollow(self.stream, self._wake)
            changed, self._changed = self._changed, asyncio.Event()
            changed.set()

    async def stop(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader


class Subscription:
    """One follower's cursor on a feed: ``start`` is the table when it joined; ``next`` the states after it."""

    def __init__(self, feed: TableFeed, cursor: int, start) -> None:
        self.feed, self.cursor, self.start = feed, cursor, start

    async def next(self) -> list[FeedEntry]:
        """The states after this cursor, waiting for some; empty once the table is over and all are taken."""
        feed = self.feed
        while True:
            if feed.history and feed.history[-1].version > self.cursor:
                entries = [e for e in feed.history if e.version > self.cursor]
                self.cursor = entries[-1].version
                feed._trim()
                return entries
            if feed.failed is not None:
                raise feed.failed
            if feed.over and feed.head <= self.cursor:
                return []
            await feed._changed.wait()

    def close(self) -> None:
        self.feed._leave(self)
