"""A live stream's response (Server-Sent Events), written by the request's own task.

Litestar's ``ServerSentEvent`` runs each stream in an anyio task group (a task that writes, the request's task
listening for the disconnect, ~130 objects a stream) and frames every message again for every follower. Here
the request's task writes the frames as they come (each frame is made once for all who see it: its bytes are
the feed's, ``services/tables/feeds.py``), and the client's going away is seen by a callback on one plain
``receive`` task, which ends the frames' source (``on_disconnect``); the response's background task runs
after the body, as Litestar's would.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from litestar.background_tasks import BackgroundTask

HEADERS = [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache"),
           (b"connection", b"keep-alive"), (b"x-accel-buffering", b"no")]


def frame(event: str, data: str | bytes, event_id: int | str | None = None) -> bytes:
    """One Server-Sent Event: ``data`` is one line (JSON, which has none)."""
    body = data if isinstance(data, bytes) else data.encode()
    head = b"" if event_id is None else b"id: %s\n" % str(event_id).encode()
    return head + b"event: " + event.encode() + b"\ndata: " + body + b"\n\n"


class LiveStream:
    """An ASGI response of ``frames`` (bytes, each one whole event); ``on_disconnect`` is called once if the
    client goes away first (it should end ``frames``); ``background`` runs after the body in any case."""

    def __init__(self, frames: AsyncIterator[bytes], on_disconnect: Callable[[], None],
                 background: BackgroundTask | None = None):
        self.frames, self.on_disconnect, self.background = frames, on_disconnect, background

    async def __call__(self, scope, receive, send) -> None:
        gone = False

        async def watch() -> None:
            nonlocal gone
            while (await receive())["type"] != "http.disconnect":
                pass
            gone = True
            self.on_disconnect()

        watcher = asyncio.get_running_loop().create_task(watch())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
            async for chunk in self.frames:
                if gone:
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if not gone:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            aclose = getattr(self.frames, "aclose", None)
            if aclose is not None:
                await aclose()
            if self.background is not None:
                await self.background()
