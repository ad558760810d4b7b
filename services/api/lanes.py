"""The hot route's lane: a player's command at a table, answered without Litestar's per-request machinery.

At a live table every action is one ``POST /tables/{id}/commands``, and Litestar's own steps for it (the
guard's copy of the handler, six dependencies, the signature model, the body's DTO, the response object and
its encoder) cost the API about as much as the command's own work (``bench/human_load.py --profile``). This
middleware, innermost of the app's (after the NUL check, the rate limit with its token resolution, and the
CSRF check of cookie sessions), answers that route itself for a plain request: the caller first (the same
``Authenticator.session``, so a bad token is the same 401), then the body read and decoded as the route's
DTO does, then the route's own code (``routes_tables.act_at_table``), its answer encoded as Litestar would.
Anything else goes to Litestar as if the lane were not there: a query string, no ``Content-Length`` or one
over the limit, another content type, a body the DTO or the body guard would refuse (the messages already
read are handed on again), so every refusal of a malformed request is Litestar's own. A refusal raised by
the route's code (an illegal card, a stale version, a table not yours) is rendered by the app's exception
handlers, as from any middleware. The route stays Litestar's for the OpenAPI document and for everything
the lane passes on.
"""

from __future__ import annotations

import msgspec
from litestar.enums import ScopeType
from litestar.utils.empty import value_or_default
from litestar.utils.scope.state import ScopeState

from services.api import schemas
from services.api.guards import MAX_BODY, body_problem
from services.api.routes_tables import act, act_at_table

_COMMAND = msgspec.json.Decoder(schemas.PlayerCommand, strict=True)
_ANSWER = msgspec.json.Encoder()


class HotRoutes:
    """ASGI middleware: the lane of ``POST /tables/{id}/commands`` (see the module docstring)."""

    taken = 0           # requests the lane answered in this process (the tests read it)

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if (scope["type"] != ScopeType.HTTP or getattr(scope.get("route_handler"), "fn", None) is not act.fn
                or scope["query_string"] or scope["method"] != "POST"):
            return await self.app(scope, receive, send)
        length = _plain_length(scope)
        if length is None:
            return await self.app(scope, receive, send)
        platform = scope["litestar_app"].state.platform
        user = (await scope["litestar_app"].state.auth.session(scope)).user     # who asks, before the body
        messages, body = await _read(receive, length)
        data = None if body is None or body_problem(body) is not None else _decoded(body)
        if data is None:                            # Litestar reads it again, and refuses it as it would
            return await self.app(scope, _replay(messages, receive), send)
        answer = await act_at_table(platform.tables, platform.feeds, platform.access,
                                    scope["path_params"]["table_id"], data, platform.access.viewer(user.user_id), None)
        encoded = _ANSWER.encode(answer)
        HotRoutes.taken += 1
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(encoded))]})
        await send({"type": "http.response.body", "body": encoded})


def _plain_length(scope) -> int | None:
    """The announced body length of a JSON request the lane may read (None: Litestar's to take)."""
    if value_or_default(ScopeState.from_scope(scope).body, None) is not None:
        return None                                 # read already (by a middleware): Litestar has it
    length = kind = None
    for name, value in scope["headers"]:
        if name == b"content-length":
            length = value
        elif name == b"content-type":
            kind = value
    if kind is not None and not kind.lower().startswith(b"application/json"):
        return None
    if length is None or not length.isdigit() or int(length) > MAX_BODY:
        return None
    return int(length)


async def _read(receive, length: int) -> tuple[list, bytes | None]:
    """The request's messages and its body (None: not the announced length, or the client went away)."""
    messages, chunks, size = [], [], 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if size > length:
            return messages, None
        if not message.get("more_body", False):
            return messages, b"".join(chunks) if size == length else None


def _decoded(body: bytes) -> schemas.PlayerCommand | None:
    try:
        return _COMMAND.decode(body)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None


def _replay(messages: list, receive):
    """A ``receive`` that gives ``messages`` again, then what the connection gives."""
    pending = list(messages)

    async def replay():
        return pending.pop(0) if pending else await receive()

    return replay
