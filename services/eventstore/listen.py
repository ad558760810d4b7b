"""Hearing of appends as they happen: one LISTEN connection per process, on the channel the appends NOTIFY.

A NOTIFY names the streams appended to with the version each reached (``notified_streams``); a follower
of a stream is woken only by those naming its stream, and learns the version, so that a follower already
there reads nothing. One naming no stream (its payload did not fit, or the listener reconnected after
missing some) wakes every follower. A lost notification only delays a follower to its poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import asyncpg

from services.eventstore.store import CHANNEL, notified_streams

log = logging.getLogger("baloot.eventstore")


@contextlib.asynccontextmanager
async def woken_by(conn: asyncpg.Connection, channel: str):
    """An ``asyncio.Event`` set by each NOTIFY on ``channel`` that ``conn`` hears while inside; the listener
    removed after (a connection that cannot remove it is terminated: no pooled connection goes on listening)."""
    woken = asyncio.Event()
    wake = lambda *_: woken.set()                          # noqa: E731
    await conn.add_listener(channel, wake)
    try:
        yield woken
    finally:
        if not conn.is_closed():
            try:
                await conn.remove_listener(channel, wake)
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                conn.terminate()


async def woken_within(woken: asyncio.Event, timeout: float) -> None:
    """Wait until ``woken`` is set or ``timeout`` seconds have passed, whichever comes first."""
    try:
        await asyncio.wait_for(woken.wait(), timeout)
    except TimeoutError:
        pass


class Wake(asyncio.Event):
    """A followed stream's notifications since they were last taken, and the highest version they named (a
    follower that must not wait in a task is called at each one through ``Listener.watch`` instead)."""

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


class Listener:
    """The process's LISTEN connection and its followers; it listens again when PostgreSQL drops it."""

    RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0)      # seconds between attempts; the last one repeats

    def __init__(self) -> None:
        self._follows: dict[str, Wake] = {}
        self._watchers: dict[str, set] = {}
        self._prefixes: dict[str, set] = {}         # prefix -> callbacks given the name notified
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
            self._on_notify(None, 0, CHANNEL, "")      # appends made while away: every follower reads again
            return

    @property
    def listening(self) -> bool:
        return self._conn is not None and not self._conn.is_closed()

    @property
    def pid(self) -> int | None:
        """The server process of the LISTEN connection (what a drill terminates)."""
        return self._conn.get_server_pid() if self.listening else None

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
        if named is None:
            for wake in self._follows.values():
                wake.note(None)
            for watchers in list(self._watchers.values()):
                for callback in list(watchers):
                    callback()
            for callbacks in list(self._prefixes.values()):
                for callback in list(callbacks):
                    callback(None)
            return
        for stream, version in named.items():
            wake = self._follows.get(stream)
            if wake is not None:
                wake.note(version)
            for callback in list(self._watchers.get(stream, ())):
                callback()
            for prefix, callbacks in self._prefixes.items():
                if stream.startswith(prefix):
                    for callback in list(callbacks):
                        callback(stream)

    def follow(self, stream: str) -> Wake:
        """The waiter of ``stream`` (one per stream): every notification of it sets it, with the version it
        names, until ``unfollow``; ``Wake.take`` clears it. Take it before reading, then wait on it (or
        ``watch`` the stream): a notification in between is not lost."""
        wake = self._follows.get(stream)
        if wake is None:
            wake = self._follows[stream] = Wake()
        return wake

    def unfollow(self, stream: str, wake: Wake) -> None:
        if self._follows.get(stream) is wake:
            del self._follows[stream]

    def watch(self, name: str, callback) -> None:
        """Call ``callback()`` at every notification naming ``name`` (and at one naming nothing), until
        ``unwatch``: several may watch one name (a user's live streams watch his tokens). No task waits."""
        self._watchers.setdefault(name, set()).add(callback)

    def unwatch(self, name: str, callback) -> None:
        watchers = self._watchers.get(name)
        if watchers is not None:
            watchers.discard(callback)
            if not watchers:
                del self._watchers[name]

    def watch_prefix(self, prefix: str, callback) -> None:
        """Call ``callback(name)`` at every notification of a name starting with ``prefix``, and
        ``callback(None)`` at one naming nothing (any name: also after the connection was lost, when some
        may have been missed), for as long as the listener lives (a process's token cache: nothing stops
        watching)."""
        self._prefixes.setdefault(prefix, set()).add(callback)
