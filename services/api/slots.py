"""A cap on the live streams (Server-Sent Events) each user holds open at once: each one renders a view at
every append of its table, so one client holding thousands would slow every command.

A stream takes a slot before its first byte (the next one is refused with 429 ``too_many_streams``) and
gives it back once: when the response is over (its background task runs after the body, also when the
client disconnected) or, if the response never ran, when it is collected. What feeds the streams is
``services/tables/feeds.py``.
"""

from __future__ import annotations

import asyncio
import os
import weakref

from litestar.background_tasks import BackgroundTask

from services.api.limits import RateLimited
from services.api.live import LiveStream

DEFAULT_MAX_STREAMS = 8



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

    def hold(self, response: LiveStream) -> LiveStream:
        """``response``, whose background task is ``when_sent()``; if it never runs, the slot is given back
        when it is collected."""
        weakref.finalize(response, self.release)
        return response
