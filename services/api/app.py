"""The Litestar application: an app factory whose lifespan owns the asyncpg pool, the LISTEN connection and
the process's services (``services.platform.Platform``)."""

from __future__ import annotations

import contextlib
import logging

from litestar import Litestar, Request, Response, get
from litestar.config.app import AppConfig
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin

from services.api.auth import Authenticator
from services.api.deps import DEPENDENCIES, InTurn, Pool, caller_first
from services.api.guards import MAX_BODY, GuardedRequest, RejectNul, security_headers
from services.api.lanes import HotRoutes
from services.api.live import LATER
from services.api.limits import UNLIMITED_PATHS, Limits, Throttle
from services.api.problems import (DATABASE_AWAY, EXCEPTION_HANDLERS, PROBLEM_RESPONSES, database_unavailable,
                                   document_problems)
from services.api.routes_accounts import account_router
from services.api.routes_auth import auth_router
from services.api.routes_championships import championship_router
from services.api.routes_daily import daily_router
from services.api.routes_exports import export_router
from services.api.routes_fairplay import fairplay_router
from services.api.routes_lobby import lobby_router
from services.api.routes_profiles import games_router, profile_router
from services.api.routes_ratings import ratings_router
from services.api.routes_review import review_router
from services.api.routes_webhooks import webhook_router
from services.api.reference import OfflineSwagger
from services.api.routes_referee import referee_router
from services.api.routes_log import log_router
from services.api.routes_tables import table_router
from services.api.sessions import SessionCsrf
from services.api.slots import StreamSlots
from services.db import answers
from services.eventstore.listen import Listener
from services.platform import Platform
from services.web import web_routers

log = logging.getLogger("baloot.api")

HEALTH_TIMEOUT = 2.0


@get("/health", operation_id="health", summary="Ready: the database answers", exclude_from_auth=True,
     responses={503: PROBLEM_RESPONSES[503]})
async def health(request: Request, pool: Pool) -> Response:
    """200 only when the database answers ``select 1`` quickly: load balancers and probes route by this."""
    try:
        await answers(pool, HEALTH_TIMEOUT)
    except DATABASE_AWAY as exc:
        return database_unavailable(request.url.path, f"the database did not answer within {HEALTH_TIMEOUT:g} s "
                                                      f"({type(exc).__name__})")
    return Response({"status": "ok", "database": "ok"})


class App(Litestar):
    """The app: Litestar's, running a live stream, once its start is sent, after Litestar's layers have
    returned, with the server's own ``receive`` and ``send`` (``services/api/live.py``)."""

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await super().__call__(scope, receive, send)
        scope[LATER] = None
        await super().__call__(scope, receive, send)
        stream = scope[LATER]
        if stream is not None:
            await stream.stream(receive, send)


def create_app(database_url: str | None = None, *, rate_limit: tuple[str, int] | None = None,
               signup_limit: tuple[str, int] | None = None, auth_fail_limit: tuple[str, int] | None = None,
               max_streams_per_user: int | None = None, pool_size: int = 10, extra_routers: tuple = (),
               work=None, daily: dict | None = None, password_hasher=None,
               sign_in_fail_limit: tuple[str, int] | None = None, sign_in=None) -> Litestar:
    """The API. ``database_url`` None: DATABASE_URL, else the embedded PostgreSQL (services/db.py); ``work``:
    the workers its appends queue work for (``services.flow``), None when none are attached; ``daily``: the
    daily deal's options (``DailyService``: its clock, boards a day); ``password_hasher``: the accounts'
    (argon2-cffi's ``PasswordHasher``; tests pass a cheap one).

    Limits left None come from the environment (``Limits.configure``, ``StreamSlots``); a caller passing only
    ``rate_limit`` gets it for sign-ups and failed authentication too.
    """
    from services.anchor.keys import default_signer
    from services.db import connect, database_server

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar):
        server_url = database_url or database_server().url
        pool = await connect(server_url, min_size=1, max_size=pool_size)
        listener = Listener()
        await listener.start(server_url)
        app.state.auth = Authenticator(pool, listener=listener)
        app.state.signer = default_signer()  # signs receipts and checkpoints; the key file is outside the database
        # `work` queues the workers' part of what follows an append (services/flow.py), when they are attached.
        app.state.platform = await Platform.on(pool, signer=app.state.signer, work=work, listener=listener,
                                               daily=daily, hasher=password_hasher)
        # The CSRF tokens of browser sessions are signed with a key every API process derives alike.
        app.state.csrf_key = app.state.platform.seeds.derive("baloot-csrf/1", 64)
        await app.state.platform.accounts.fill_keys()       # skeletons and name keys of rows before 0023
        try:
            yield
        finally:
            await app.state.platform.feeds.stop()
            await listener.stop()
            await pool.close()

    config = AppConfig(
        route_handlers=[health, auth_router, account_router, lobby_router, profile_router, games_router, ratings_router, table_router, review_router, championship_router, daily_router,
                        log_router, export_router, fairplay_router, referee_router, webhook_router, *web_routers, *extra_routers],
        lifespan=[lifespan],
        dependencies=DEPENDENCIES,
        plugins=[InTurn()],
        guards=[caller_first],
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[RejectNul, Throttle, SessionCsrf, HotRoutes],
        before_send=[security_headers],
        request_class=GuardedRequest,
        request_max_body_size=MAX_BODY,
        # What needs no database is made with the app; the rest by its lifespan, once the database answers.
        state=State({"limits": Limits.configure(rate_limit, signup_limit, auth_fail_limit, sign_in_fail_limit,
                                                sign_in),
                     "streams": StreamSlots(max_streams_per_user)}),
        openapi_config=OpenAPIConfig(title="baloot-arena", version="0.1.0", path="/schema",
                                     render_plugins=[OfflineSwagger(), JsonRenderPlugin()],
                                     description="Saudi Baloot championships: organisers, players, referees, "
                                                 "spectators. Every refusal is an RFC 9457 problem document."),
    )
    app = App.from_config(config)
    document_problems(app, UNLIMITED_PATHS)
    return app
