"""A live stream's response (Server-Sent Events), written by the request's own task.

Litestar's ``ServerSentEvent`` runs each stream in an anyio task group (a task that writes, the request's task
listening for the disconnect, ~130 objects a stream) and frames every message again for every follower. Here
the request's task writes the frames as they come (each frame is made once for all who see it: its bytes are
the feed's, ``services/tables/feeds.py``; what arrives together is written together), and the client's going
away is seen by a callback on one plain ``receive`` task (``on_disconnect``, which should end the body); the
response's background task runs after the body, as Litestar's would. The body is a coroutine given ``write``,
not an async generator: a stream that waits leaves no generator step alive for the garbage collector to walk.

Served by ``services.api.app.App``, a stream's start goes out through Litestar's layers (its headers, the
``before_send`` hooks, a CSRF cookie), and the rest runs once those layers have returned: the app then hands
it the server's own ``receive`` and ``send``. A stream lasts as long as its table, and while it ran inside
them each of the thousands of streams kept a suspended coroutine per layer alive (17 coroutines and ~140
tracked objects a stream), all of which the garbage collector's middle generation walked at once, 0.7 s, the
first time after a round's streams opened (``deploy/SCALING.md``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from litestar.background_tasks import BackgroundTask

HEADERS = [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache"),
           (b"connection", b"keep-alive"), (b"x-accel-buffering", b"no")]


def frame(event: str, data: str | bytes, event_id: int | str | None = None) -> bytes:
    """One Server-Sent Event: ``data`` is one line (JSON, which has none)."""
    body = data if isinstance(data, bytes) else data.encode()
    head = b"" if event_id is None else b"id: %s\n" % str(event_id).encode()
    return head + b"event: " + event.encode() + b"\ndata: " + body + b"\n\n"


Write = Callable[[bytes], Awaitable[bool]]
LATER = "baloot.stream"         # the scope's key of a stream the app runs after Litestar's layers (app.py)


class LiveStream:
    """An ASGI response written by ``body(write)``: ``await write(chunk)`` sends bytes (whole events) and says
    whether the client is still there; ``on_disconnect`` is called once if the client goes away first (it
    should end ``body``); ``background`` runs after the body in any case."""

    def __init__(self, body: Callable[[Write], Awaitable[None]], on_disconnect: Callable[[], None],
                 background: BackgroundTask | None = None):
        self.body, self.on_disconnect, self.background = body, on_disconnect, background

    async def __call__(self, scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        if LATER in scope:                  # the app runs the rest once Litestar's layers have returned
            scope[LATER] = self
            return
        await self.stream(receive, send)

    async def stream(self, receive, send) -> None:
        """The response after its start: the body's frames, until it ends or the client goes away."""
        gone = False

        async def watch() -> None:
            nonlocal gone
            while (await receive())["type"] != "http.disconnect":
                pass
            gone = True
            self.on_disconnect()

        async def write(chunk: bytes) -> bool:
            if gone:
                return False
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            return True

        watcher = asyncio.get_running_loop().create_task(watch())
        try:
            await self.body(write)
            if not gone:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            if self.background is not None:
                await self.background()
