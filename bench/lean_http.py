"""The load generator's HTTP/1.1 connections: asyncio protocols whose responses httptools (llhttp, uvicorn's
own parser) reads, for ``bench/human_load.py``.

Why not aiohttp for the measured part: the clients share the machine's two cores with the server they
measure, and aiohttp cost them ~1.2 ms of CPU per action at human pace (a request's setup, a stream read line
by line through its ``StreamReader``), as much as the server's own cost. Here a command is one write and one
parse of its answer on a pooled keep-alive connection, and a live stream is parsed as it arrives, its
chunks and events cut at their ends and handed on whole (``on_event``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httptools


class HttpError(Exception):
    """The connection failed or closed before its answer was whole."""


class _Connection(asyncio.Protocol):
    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self.failed(HttpError(f"unreadable answer: {exc}"))
            self.transport.close()

    def connection_lost(self, exc) -> None:
        self.failed(HttpError(f"connection lost: {exc or 'closed by the server'}"))
        if not self.closed.done():
            self.closed.set_result(None)

    def failed(self, exc: Exception) -> None:
        """The connection is of no more use (subclasses fail what waits on it)."""

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


def _request(method: str, host: str, path: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"host: {host}", *(f"{k}: {v}" for k, v in headers.items())]
    if body or method == "POST":
        lines += ["content-type: application/json", f"content-length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Client(_Connection):
    """One keep-alive connection for one caller's requests, one at a time: ``await call(...)`` gives the
    answer's status and body."""

    def __init__(self, host: str) -> None:
        super().__init__()
        self.host = host
        self._answer: asyncio.Future | None = None
        self._body: list[bytes] = []
        self.headers: dict[str, str] = {}          # the last answer's, names in lower case

    async def call(self, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
        if self.closed.done():
            raise HttpError("connection closed")
        self._answer = answer = asyncio.get_running_loop().create_future()
        self._body = []
        self.headers = {}
        self.transport.write(_request(method, self.host, path, headers, body))
        return await answer

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        answer, self._answer = self._answer, None
        if answer is not None and not answer.done():
            answer.set_result((self.parser.get_status_code(), b"".join(self._body)))

    def failed(self, exc: Exception) -> None:
        answer, self._answer = self._answer, None
        if answer is not None and not answer.done():
            answer.set_exception(exc)


class EventStream(_Connection):
    """One Server-Sent Events stream (a GET whose answer never ends until the server ends it): each event,
    as (its name, its id or None, its data line), to ``on_event``; ``status`` once the head is read."""

    def __init__(self, on_event: Callable[[bytes, int | None, bytes], None]) -> None:
        super().__init__()
        self.on_event = on_event
        self.status: asyncio.Future = asyncio.get_running_loop().create_future()
        self._buffer = b""

    def on_headers_complete(self) -> None:
        if not self.status.done():
            self.status.set_result(self.parser.get_status_code())

    def on_body(self, body: bytes) -> None:
        buffer = self._buffer + body if self._buffer else body
        end = buffer.rfind(b"\n\n")
        if end < 0:
            self._buffer = buffer
            return
        self._buffer = buffer[end + 2:]
        for block in buffer[:end].split(b"\n\n"):
            name, ident, data = b"message", None, b""
            for line in block.split(b"\n"):
                key, _, value = line.partition(b":")
                value = value[1:] if value.startswith(b" ") else value
                if key == b"data":
                    data = value
                elif key == b"event":
                    name = value
                elif key == b"id":
                    ident = int(value)
            self.on_event(name, ident, data)

    def on_message_complete(self) -> None:       # the server ended the stream
        self.close()

    def failed(self, exc: Exception) -> None:
        if not self.status.done():
            self.status.set_exception(exc)


async def open_client(host: str, port: int) -> Client:
    _, conn = await asyncio.get_running_loop().create_connection(lambda: Client(f"{host}:{port}"), host, port)
    return conn


class Pool:
    """Keep-alive connections to one server, shared by a process's callers: the one used last is used next, a
    new one is opened when all are busy, and one idle for ``idle`` seconds is closed rather than used (the
    server closes a connection idle for a few seconds: 5 by default in uvicorn; a request sent as it does so
    would fail)."""

    def __init__(self, host: str, port: int, idle: float = 2.0) -> None:
        self.host, self.port, self.idle = host, port, idle
        self._idle: list[tuple[Client, float]] = []          # (connection, when it was last used), oldest first

    async def call(self, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
        status, _, answer = await self.exchange(method, path, headers, body)
        return status, answer

    async def exchange(self, method: str, path: str, headers: dict[str, str], body: bytes = b""
                       ) -> tuple[int, dict[str, str], bytes]:
        """As ``call``, with the answer's headers (names in lower case)."""
        loop = asyncio.get_running_loop()
        client = None
        while self._idle and client is None:
            client, used = self._idle.pop()
            if client.closed.done() or loop.time() - used > self.idle:
                client.close()
                client = None
        if client is None:
            client = await open_client(self.host, self.port)
        try:
            status, answer = await client.call(method, path, headers, body)
        except BaseException:
            client.close()                    # an answer cut or abandoned: the connection is not reused
            raise
        self._idle.append((client, loop.time()))
        return status, client.headers, answer

    def close(self) -> None:
        for client, _ in self._idle:
            client.close()
        self._idle.clear()


async def open_stream(host: str, port: int, path: str, headers: dict[str, str],
                      on_event: Callable[[bytes, int | None, bytes], None]) -> tuple[EventStream, int]:
    """A stream of ``GET path`` and its answer's status (the events follow only if it is 200)."""
    _, conn = await asyncio.get_running_loop().create_connection(lambda: EventStream(on_event), host, port)
    conn.transport.write(_request("GET", f"{host}:{port}", path, {**headers, "accept": "text/event-stream"}))
    return conn, await conn.status
