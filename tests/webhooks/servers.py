"""Receivers that misbehave, as small asyncio HTTP servers on loopback in the test's own loop (so that a test can
await what they saw): one that answers at once, one that drips its answer a byte at a time forever, one that
sends the start of a long answer and then holds the connection open. They verify nothing (the signatures are
tests/webhooks/receiver's business): what they record is when and what they were sent."""

from __future__ import annotations

import asyncio
import itertools


class Server:
    """The common part: a listening socket, a task per connection (hung up at ``close``), each request read
    whole (head and content-length body), ``connected`` set at the first and ``closed`` when the sender hung up."""

    def __init__(self) -> None:
        self.ids: list[str] = []                  # webhook-id of each request, in the order they came
        self.connected = asyncio.Event()
        self.closed = asyncio.Event()
        self.handlers: set[asyncio.Task] = set()
        self.writers: set[asyncio.StreamWriter] = set()
        self.server: asyncio.Server | None = None
        self.url = ""

    async def start(self) -> Server:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/hook"
        return self

    async def close(self) -> None:
        """Stop listening and hang up on every connection; each handler then sees its connection gone and ends
        (not cancelled: asyncio's stream servers log a cancelled handler as an error)."""
        self.server.close()
        for writer in self.writers:
            writer.close()
        async with asyncio.timeout(30):
            await asyncio.gather(*self.handlers, return_exceptions=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.handlers.add(asyncio.current_task())
        self.writers.add(writer)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                fields = dict(line.split(b":", 1) for line in head.split(b"\r\n")[1:] if b":" in line)
                fields = {k.strip().lower().decode(): v.strip().decode() for k, v in fields.items()}
                await reader.readexactly(int(fields.get("content-length", "0")))
                self.ids.append(fields.get("webhook-id", ""))
                self.connected.set()
                if not await self.answer(reader, writer):
                    return
        except ConnectionError:
            pass
        finally:
            self.closed.set()
            writer.close()

    async def answer(self, reader, writer) -> bool:
        """Answer one request; whether the connection goes on."""
        raise NotImplementedError


class Healthy(Server):
    """Answers 200 at once, keeping the connection."""

    async def answer(self, reader, writer) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
        await writer.drain()
        return True


class Drip(Server):
    """Answers one byte every ``interval`` seconds, forever (its status line first, then an endless header):
    never a whole answer. ``dripped``: bytes sent so far."""

    def __init__(self, interval: float) -> None:
        super().__init__()
        self.interval, self.dripped = interval, 0

    async def answer(self, reader, writer) -> bool:
        for byte in itertools.chain(b"HTTP/1.1 200 OK\r\nx-drip: ", itertools.repeat(ord("a"))):
            if reader.at_eof() or writer.is_closing():
                return False                        # the sender hung up
            writer.write(bytes([byte]))
            await writer.drain()
            self.dripped += 1
            await asyncio.sleep(self.interval)      # the receiver's pace, not a wait for anything
        return False


class Chatty(Server):
    """Answers 200 with a body it says is a megabyte, sends ``sent`` bytes of it at once and then nothing more,
    holding the connection open: the whole body never comes."""

    def __init__(self, sent: int) -> None:
        super().__init__()
        self.sent = sent

    async def answer(self, reader, writer) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 1048576\r\n\r\n" + b"x" * self.sent)
        await writer.drain()
        await reader.read()                         # until the sender hangs up (EOF)
        return False
