"""A cap on the live streams (Server-Sent Events) each user holds open at once.

Every stream wakes on each append and renders a view, so one client holding thousands slowed every
command. A stream takes a slot before its first byte (the next one is refused with 429
``too_many_streams``) and gives it back when it ends, when the client disconnects (the stream is cancelled),
or, if it never started, when its generator is collected.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import AsyncIterator

from services.api.limits import RateLimited

DEFAULT_MAX_STREAMS = 8


class StreamSlots:
    def __init__(self, per_user: int | None = None):
        self.per_user = per_user if per_user is not None else int(
            os.environ.get("BALOOT_MAX_STREAMS_PER_USER", DEFAULT_MAX_STREAMS))
        self._open: dict[str, int] = {}          # user id -> streams open; a user at 0 has no entry
        self._changed = asyncio.Condition()

    def open(self, user_id: str) -> int:
        return self._open.get(user_id, 0)

    def take(self, user_id: str) -> Slot:
        """A slot for one stream of ``user_id``, or a 429 problem when all are in use."""
        n = self._open.get(user_id, 0)
        if n >= self.per_user:
            raise RateLimited("too_many_streams", f"you already follow {n} live streams, the most one user may "
                                                  "hold open; close one first", 1)
        self._open[user_id] = n + 1
        return Slot(self, user_id)

    def _give_back(self, user_id: str) -> None:
        n = self._open.get(user_id, 0) - 1
        if n > 0:
            self._open[user_id] = n
        else:
            self._open.pop(user_id, None)
        try:
            asyncio.get_running_loop().create_task(self._notify())
        except RuntimeError:             # collected outside the loop (at shutdown): nobody waits
            pass

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_until(self, user_id: str, at_most: int) -> None:
        """Until ``user_id`` holds at most ``at_most`` streams (for tests and shutdown)."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.open(user_id) <= at_most)


class Slot:
    def __init__(self, slots: StreamSlots, user_id: str):
        self._slots, self._user_id = slots, user_id
        self._held = True

    def release(self) -> None:
        if self._held:
            self._held = False
            self._slots._give_back(self._user_id)

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
