"""Input the database or the decoder cannot take is refused before it reaches either, with a 400.

* JSON bodies nested deeper than ``MAX_DEPTH`` (msgspec recurses once per level: a 2 KB body of brackets
  overflowed the stack) and strings holding U+0000 (PostgreSQL text cannot store NUL): every body is read
  through :class:`GuardedRequest`, which checks before anything decodes it.
* NUL in the path or the query string: :class:`RejectNul`, before any handler runs.
"""

from __future__ import annotations

import re

from litestar import Request

from services.api.problems import Problem

MAX_DEPTH = 32
MAX_BODY = 64 * 1024                # bytes of a request body (the app's limit: 413 beyond)
_NUL_ESCAPE = re.compile(rb"\\u0000")
_SCAN = re.compile(rb'[\[\]{}"]')
_STRING_END = re.compile(rb'(?:[^"\\]|\\.)*"', re.S)


def body_problem(body: bytes) -> Problem | None:
    """Why ``body`` (JSON) must not be decoded: too deep, or a NUL in a string; None if it may be."""
    if body.count(b"[") + body.count(b"{") > MAX_DEPTH and _depth_over(body, MAX_DEPTH):
        return Problem(400, "malformed_body", f"the JSON is nested more than {MAX_DEPTH} levels deep")
    if b"\x00" in body or (b"\\u0000" in body and _has_nul_escape(body)):
        return Problem(400, "invalid_field", "text may not contain the NUL character (U+0000)")
    return None


def _depth_over(body: bytes, limit: int) -> bool:
    depth, i = 0, 0
    scan, string_end = _SCAN.search, _STRING_END.match
    while (m := scan(body, i)) is not None:
        c, i = m.group(), m.end()
        if c == b'"':
            end = string_end(body, i)
            if end is None:
                return False           # an unterminated string: the decoder reports it
            i = end.end()
        elif c in b"[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _has_nul_escape(body: bytes) -> bool:
    r"""Whether a JSON string holds ``\u0000`` (and not an escaped backslash followed by ``u0000``)."""
    for m in _NUL_ESCAPE.finditer(body):
        i = m.start()
        while i > 0 and body[i - 1] == 0x5C:          # the backslashes before this one
            i -= 1
        if (m.start() - i) % 2 == 0:
            return True
    return False


class GuardedRequest(Request):
    """The app's request class: its body is checked once, before any decoding (see the module docstring)."""

    _checked = False

    async def body(self) -> bytes:
        body = await super().body()
        if not self._checked:
            problem = body_problem(body)
            if problem is not None:
                raise problem
            self._checked = True
        return body


# On every response, pages and API alike: the pages load scripts, styles and data from this server only and
# run no inline script (the CSP), no response is sniffed into another type, and no page is framed elsewhere.
SECURITY_HEADERS = (
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
                                 b"form-action 'self'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)


async def security_headers(message, scope) -> None:
    """The app's ``before_send`` hook: ``SECURITY_HEADERS`` on every HTTP response, refusals included (also
    those a middleware raises, which no middleware's own ``send`` sees)."""
    if message["type"] == "http.response.start":
        message["headers"] = [*message.get("headers", ()), *SECURITY_HEADERS]


class RejectNul:
    """ASGI middleware: a NUL in the path (``%00``) or query string is a 400 before any handler runs."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            query = scope.get("query_string", b"")
            if "\x00" in scope["path"] or b"%00" in query or b"\x00" in query:
                raise Problem(400, "malformed_path", "the path or query may not contain the NUL character (U+0000)")
        await self.app(scope, receive, send)
