"""This process's folded tables: the one cache that commands and live streams share, and a feed (one reader)
per table followed live.

A table is folded once per process however many ask: a command decides on the cache's fold (its append at
that fold's version guards one that is behind), an append made here hands its fold back (no read), and a
followed table's feed reads each append once, folds it once and hands the states to its followers, each of
whom renders only his own view (a view seen by several, a spectator's, is rendered once). A feed's head is
the cache's entry of its table, so the two never disagree; the cache never goes back to an older fold (two
readers or writers of one table finish in any order).

Following needs the process's ``Listener`` (the API's); without one (a worker) this is the cache alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from typing import NamedTuple

import asyncpg

from services.eventstore import read_stream
from services.eventstore.listen import Listener
from services.tables.seeds import Seeds
from services.tables.service import Table, fold_each, stored_rows, stream_of

log = logging.getLogger("baloot.tables")


class TableFeeds:
    def __init__(self, pool: asyncpg.Pool, seeds: Seeds, listener: Listener | None = None, size: int = 4096,
                 poll: float = 5.0) -> None:
        self.pool, self.seeds, self.listener, self.size, self.poll = pool, seeds, listener, size, poll
        self._folds: OrderedDict[str, Table] = OrderedDict()     # the most recently used tables' folds
        self._feeds: dict[str, TableFeed] = {}
        self._poller: asyncio.Task | None = None

    # ------------------------------------------------------------ the cache

    def get(self, table_id: str) -> Table | None:
        """The table as this process last folded it (its own appends included), or None; possibly behind."""
        kept = self._folds.get(table_id)
        if kept is None:                        # fallen out of the cache while followed
            feed = self._feeds.get(table_id)
            return feed.state if feed is not None and feed.failed is None else None
        return kept

    def keep(self, table_id: str, table: Table) -> None:
        """Keep ``table`` (a fold made in this process) unless a later one is kept."""
        kept = self._folds.get(table_id)
        if kept is None or kept.version <= table.version:
            self._folds[table_id] = table
        self._folds.move_to_end(table_id)
        while len(self._folds) > self.size:
            self._folds.popitem(last=False)

    def appended(self, table_id: str, table: Table, stored: list) -> None:
        """This process appended ``stored`` ((version, recorded_at, event, metadata)) to the table, which made
        ``table``: kept, and taken by the table's feed (if it is right before them) without reading them."""
        self.keep(table_id, table)
        feed = self._feeds.get(table_id)
        if feed is not None and stored and feed.failed is None and stored[0][0] == feed.head + 1:
            feed.take(fold_each(feed.state, stored, self.seeds.deal_seed))

    def clear(self) -> None:
        self._folds.clear()

    # ------------------------------------------------------------ following

    def subscribe(self, table_id: str, table: Table) -> Subscription:
        """A cursor on ``table_id``'s feed at its head; ``table`` (the table as just loaded) starts a new feed."""
        feed = self._feeds.get(table_id)
        if feed is None or feed.failed is not None:
            feed = self._feeds[table_id] = TableFeed(self, table_id, table)
        return feed.subscribe()

    def current(self, table_id: str) -> Table | None:
        """The table as its feed has it, when nothing stored since is known to be missing from it (no
        notification waiting, no read under way); else None. It may still be behind an append whose
        notification is on its way: use it where the append's expected version guards."""
        feed = self._feeds.get(table_id)
        return feed.state if feed is not None and feed.up_to_date else None

    def following(self) -> int:
        """How many tables this process reads for its followers."""
        return len(self._feeds)

    def _drop(self, feed: TableFeed) -> None:
        if self._feeds.get(feed.table_id) is feed:
            del self._feeds[feed.table_id]

    def _poll_soon(self) -> None:
        if self._poller is None or self._poller.done():
            self._poller = asyncio.get_running_loop().create_task(self._poll())

    async def _poll(self) -> None:
        """Every ``poll`` seconds, read each feed quiet that long (a lost notification delays it no more);
        ends when nothing is followed."""
        while self._feeds:
            await asyncio.sleep(self.poll)
            quiet = time.monotonic() - self.poll
            for feed in list(self._feeds.values()):
                if feed.last_news <= quiet:
                    feed.read_soon()

    async def stop(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
        for feed in list(self._feeds.values()):
            await feed.stop()
        self._feeds.clear()


class FeedEntry(NamedTuple):
    """One stored row of a followed table, folded: its version, when it was stored, the table after it, and
    its views as sent so far (by seat; None: a spectator's), each made once for all who see it: ``make(state,
    seat, memo)`` gives what a stream sends (``services/api/routes_tables.py``: the Server-Sent Event, framed),
    ``memo`` being this dict, where the maker may also keep what the views of one state share (under keys
    that are not seats)."""

    version: int
    recorded_at: object
    state: Table
    views: dict

    def view(self, seat: int | None, make):
        made = self.views.get(seat)
        if made is None:
            made = self.views[seat] = make(self.state, seat, self.views)
        return made


class TableFeed:
    """The reader of one table: on its stream's notifications (and when quiet for ``poll`` seconds, the
    feeds' one poller) it reads the rows after its head once (none when the notification names a version it
    has), folds each once and hands the states to its subscribers. It keeps the states since its slowest
    subscriber's cursor and is dropped with its last subscriber."""

    def __init__(self, feeds: TableFeeds, table_id: str, table: Table) -> None:
        self.feeds, self.table_id, self.stream = feeds, table_id, stream_of(table_id)
        kept = feeds._folds.get(table_id)
        self.state = kept if kept is not None and kept.version > table.version else table   # the head
        self.history: list[FeedEntry] = []     # the states after the slowest subscriber's cursor, in order
        self.subscribers: set[Subscription] = set()
        self.failed: BaseException | None = None
        self.last_news = time.monotonic()      # when the feed last read or took states (the poll's clock)
        self._started = False
        self._reading: asyncio.Task | None = None
        self._wake = feeds.listener.follow(self.stream)
        feeds.listener.watch(self.stream, self._noted)      # called once the wake has the version noted

    @property
    def head(self) -> int:
        return self.state.version

    @property
    def over(self) -> bool:
        return self.state.game.phase == "ended" or self.state.cancelled

    @property
    def missing(self) -> bool:
        """A notification named a version past the head (or none): there is something to read."""
        wake = self._wake
        return wake.is_set() and (wake.version is None or wake.version > self.head)

    @property
    def up_to_date(self) -> bool:
        return self.failed is None and self._started and self._reading is None and not self.missing

    def subscribe(self) -> Subscription:
        sub = Subscription(self, self.head, self.state)
        self.subscribers.add(sub)
        if not self._started:
            self._started = True
            self.read_soon()
            self.feeds._poll_soon()
        return sub

    def _leave(self, sub: Subscription) -> None:
        self.subscribers.discard(sub)
        if not self.subscribers:
            self.feeds._drop(self)
            self._unfollow()
            if self._reading is not None:
                self._reading.cancel()
        else:
            self._trim()

    def _unfollow(self) -> None:
        self.feeds.listener.unwatch(self.stream, self._noted)
        self.feeds.listener.unfollow(self.stream, self._wake)

    def _trim(self) -> None:
        slowest = min((s.cursor for s in self.subscribers), default=self.head)
        keep = next((i for i, e in enumerate(self.history) if e.version > slowest), len(self.history))
        if keep:
            del self.history[:keep]

    def take(self, folded: list) -> None:
        """The states after the head ((version, recorded_at, table), in order) into the history."""
        self.history.extend(FeedEntry(v, at, state, {}) for v, at, state in folded)
        self.state = folded[-1][2]
        self.last_news = time.monotonic()
        self.feeds.keep(self.table_id, self.state)
        self.nudge()

    def nudge(self) -> None:
        """Wake the subscribers waiting for more (each looks again)."""
        for sub in self.subscribers:
            sub.wake()

    def _noted(self) -> None:
        """A notification of this stream (the listener's callback): read if it names what is not here."""
        if self.missing:
            self.read_soon()

    def read_soon(self) -> None:
        """Read the rows after the head, in a task of its own unless one is reading (it reads again after, if
        a notification came meanwhile). No task waits between reads: thousands of feeds are followed at once."""
        if self._reading is None and self.failed is None and not self.over and self.subscribers:
            self._reading = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        feeds = self.feeds
        try:
            while True:
                self._wake.take()                # before reading: a notification during the read is not lost
                rows = await read_stream(feeds.pool, self.stream, self.head + 1)
                rows = [r for r in rows if r.version > self.head]   # this process's own append may have come
                if rows:
                    self.take(fold_each(self.state, stored_rows(rows), feeds.seeds.deal_seed))
                self.last_news = time.monotonic()
                if self.over or not self.missing:
                    break
        except Exception as exc:                             # the database went away: its followers fail
            log.warning("live feed of %s: read failed: %s", self.table_id, exc)
            self.failed = exc
            feeds._drop(self)
            self._unfollow()
            self.nudge()
        finally:
            self._reading = None

    async def stop(self) -> None:
        reading = self._reading
        if reading is not None:
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reading


class Cut(Exception):
    """A subscription ended by its follower's side (its token revoked or expired): the reason in words."""


class Subscription:
    """One follower's cursor on a feed: ``start`` is the table when it joined; ``take`` the states after it.

    A follower takes what is there and, when nothing is, awaits ``changed()``: one future per wait, resolved
    by the feed's next change (no coroutine, event or task per wait: thousands of streams wait at once, and
    what each wait leaves alive is what the garbage collector's young scans walk)."""

    def __init__(self, feed: TableFeed, cursor: int, start: Table) -> None:
        self.feed, self.cursor, self.start = feed, cursor, start
        self.cut_by: str | None = None
        self._waiter: asyncio.Future | None = None

    def cut(self, reason: str) -> None:
        """End this subscription: its ``take`` (and a ``pause``) raises ``Cut(reason)``."""
        self.cut_by = reason
        self.wake()

    def wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def changed(self) -> asyncio.Future:
        """A future done at the feed's next change (new states, its failure, or this subscription cut)."""
        waiter = self._waiter
        if waiter is None or waiter.done():         # (one given up on: cancelled)
            waiter = self._waiter = asyncio.get_running_loop().create_future()
        return waiter

    @property
    def ended(self) -> bool:
        """The table is over and all its states are taken."""
        return self.feed.over and self.feed.head <= self.cursor

    def take(self) -> list[FeedEntry]:
        """The states after this cursor, possibly none (then await ``changed()``); ``Cut`` once cut, the feed's
        error once it failed (after the states it had)."""
        if self.cut_by is not None:
            raise Cut(self.cut_by)
        feed = self.feed
        history = feed.history
        if history and history[-1].version > self.cursor:
            entries = [e for e in history if e.version > self.cursor]
            self.cursor = entries[-1].version
            feed._trim()
            return entries
        if feed.failed is not None:
            raise feed.failed
        return []

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds`` (a spectator's broadcast delay), or until this subscription is cut: then ``Cut``."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while self.cut_by is None and (left := end - loop.time()) > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await self.changed()
        if self.cut_by is not None:
            raise Cut(self.cut_by)

    def close(self) -> None:
        self.feed._leave(self)
