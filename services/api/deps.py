"""What a route handler is given (Litestar dependency injection) instead of reaching into ``app.state``.

The app's lifespan builds the process's services once (``services.platform.Platform``) and keeps them on the
app's state; these providers hand them to the handlers that name them as parameters (``pool``, ``tables``,
``championships``, ``daily``, ``feeds``, ``access``, ``lobby`` from the platform; ``auth``, ``signer``,
``streams``), and ``user`` is the caller behind the request's bearer token (a 401 problem document when
there is none, before the handler runs).
"""

from __future__ import annotations

import functools
import inspect

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.plugins import ReceiveRoutePlugin
from litestar.routes import BaseRoute, HTTPRoute, WebSocketRoute

from services.access import Access, Viewer
from services.anchor.keys import Signer
from services.api.auth import Authenticator
from services.tokens import User
from services.api.slots import StreamSlots
from services.championships import ChampionshipService
from services.daily.service import DailyService
from services.db import Pool as DatabasePool
from services.lobby import LobbyService
from services.tables import TableService
from services.tables.feeds import TableFeeds

# The parameter types a handler names them by (each parameter's name is the dependency's key).
Caller = NamedDependency[User]
Pool = NamedDependency[DatabasePool]
Auth = NamedDependency[Authenticator]
ServerSigner = NamedDependency[Signer]
Tables = NamedDependency[TableService]
Championships = NamedDependency[ChampionshipService]
Streams = NamedDependency[StreamSlots]
Feeds = NamedDependency[TableFeeds]
Daily = NamedDependency[DailyService]
Gate = NamedDependency[Access]
Who = NamedDependency[Viewer]
Lobby = NamedDependency[LobbyService]

PLATFORM_DEPENDENCIES = ("pool", "tables", "championships", "daily", "feeds", "access", "lobby")
STATE_DEPENDENCIES = ("auth", "signer", "streams")


def _provider(name: str, of_platform: bool) -> Provide:
    def provide(state: State):
        return getattr(state.platform if of_platform else state, name)

    provide.__name__ = f"provide_{name}"
    return Provide(provide, sync_to_thread=False)


async def provide_user(request: Request, state: State) -> User:
    return await state.auth.user(request)


async def provide_viewer(user: Caller, state: State) -> Viewer:
    """The caller as the access policy asks about him, for this request (his roles read once)."""
    return state.platform.access.viewer(user.user_id)


@functools.cache
def _names_caller(fn) -> bool:
    return not {"user", "viewer"}.isdisjoint(inspect.signature(fn).parameters)


async def caller_first(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
    """Guard of every route: who is asking is settled before anything else — a route that names its caller
    (``user``) resolves the bearer token (a 401 problem document) before its body is decoded or any table
    read; the session is kept on the request for the ``user`` dependency."""
    if _names_caller(handler.fn):
        await connection.app.state.auth.session(connection.scope)


DEPENDENCIES = ({name: _provider(name, True) for name in PLATFORM_DEPENDENCIES}
                | {name: _provider(name, False) for name in STATE_DEPENDENCIES}
                | {"user": Provide(provide_user), "viewer": Provide(provide_viewer)})


class InTurn(ReceiveRoutePlugin):
    """Has Litestar resolve each route's dependencies one after another, not each batch in an anyio task group.

    The dependencies here are attribute lookups and one token check; Litestar runs the independent ones of a
    handler at once, in a task group of one task each, which costs more than the lookups themselves (a
    handler naming four: about 150 us a request against 50 us in turn, most of it the group). Litestar
    (2.25) has no setting for it (litestar-org/litestar#4563): as each route is registered (the public
    ``receive_route`` hook), its handlers' batches are split into batches of one, in the order Litestar
    batched them — a batch of one Litestar awaits itself, without a group. The values are the same (a
    batch's dependencies do not depend on each other) and the first failure is the one raised, as in the
    group."""

    def receive_route(self, route: BaseRoute) -> None:
        if isinstance(route, HTTPRoute):
            models = [model for _, model in route.route_handler_map.values()]
        elif isinstance(route, WebSocketRoute):
            models = [route.handler_parameter_model]
        else:
            return
        for model in models:
            if model is not None:
                model.dependency_batches = [{d} for batch in model.dependency_batches for d in batch]
