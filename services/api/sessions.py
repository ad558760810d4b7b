"""Browser sessions: the cookie that carries one, and CSRF protection for the requests it authenticates.

A browser signs in (``POST /session``) and gets a session token in the ``baloot_session`` cookie: HttpOnly
(no script reads it), ``SameSite=Lax`` (no other site's form or script sends it), ``Secure`` whenever the
request came over HTTPS (behind a TLS proxy, ``X-Forwarded-Proto`` from ``BALOOT_TRUSTED_PROXIES``), for
``BALOOT_TOKEN_DAYS``. The token is a row of ``tokens`` like a bearer token (``via = 'session'``): signing
out revokes it, and the live streams it opened end at once, as a revoked bearer token's do.

CSRF is Litestar's ``CSRFMiddleware`` (a double-submit token signed with a key derived from the server
secret, so that every API process accepts the others'): a safe request without a bearer token gets the
``baloot_csrf`` cookie, which the pages' script reads and sends back as ``X-CSRF-Token``; an unsafe request
that a session cookie would authenticate, and the sign-in and sign-up routes (no login CSRF), must carry
it. A request with ``Authorization: Bearer`` needs none (no browser sends that header by itself), and
neither does an anonymous ``POST /users``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac

from litestar._parsers import parse_cookie_string
from litestar.config.csrf import CSRFConfig
from litestar.datastructures import Cookie, Headers
from litestar.exceptions import PermissionDeniedException
from litestar.middleware.csrf import CSRFMiddleware

from services.api.problems import Problem

SESSION_COOKIE = "baloot_session"
SIGNED_IN_COOKIE = "baloot_signed_in"      # no secret: tells the pages' script a session may be there
CSRF_COOKIE = "baloot_csrf"
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# The routes that start a session: protected even though no session cookie comes with them yet.
SESSION_ROUTES = frozenset({"/session", "/accounts", "/accounts/claim"})


def credentials(scope) -> tuple[str, str] | None:
    """How the request says who it is: ("bearer", the Authorization header) or ("session", the cookie's
    token); None when it says nothing."""
    headers = Headers.from_scope(scope)
    header = headers.get("authorization")
    if header is not None:
        return "bearer", header
    token = parse_cookie_string(headers.get("cookie", "")).get(SESSION_COOKIE)
    return ("session", token) if token else None


def session_cookies(token: str, expires_at: dt.datetime, scope) -> list[Cookie]:
    """The session's cookie, and beside it one a script may read that says only that someone signed in (so
    that a spectator's page does not ask ``GET /session`` for nothing)."""
    age = max(0, int((expires_at - dt.datetime.now(dt.timezone.utc)).total_seconds()))
    secure = scope.get("scheme") == "https"
    return [Cookie(key=SESSION_COOKIE, value=token, path="/", httponly=True, samesite="lax", secure=secure,
                   max_age=age),
            Cookie(key=SIGNED_IN_COOKIE, value="1", path="/", httponly=False, samesite="lax", secure=secure,
                   max_age=age)]


def cleared_cookies(scope) -> list[Cookie]:
    secure = scope.get("scheme") == "https"
    return [Cookie(key=name, value="", path="/", httponly=name == SESSION_COOKIE, samesite="lax", secure=secure,
                   max_age=0) for name in (SESSION_COOKIE, SIGNED_IN_COOKIE)]


def csrf_key(server_secret: bytes) -> str:
    return hmac.new(server_secret, b"baloot-csrf/1", hashlib.sha256).hexdigest()


class SessionCsrf:
    """ASGI middleware: Litestar's CSRF check for the requests a session cookie authenticates (see above);
    its refusal is a ``403 csrf_token`` problem document. The key comes from the app's state (set by the
    lifespan from the server secret), so the check is built on the first request."""

    def __init__(self, app):
        self.app = app
        self._csrf: CSRFMiddleware | None = None

    def _middleware(self, scope) -> CSRFMiddleware:
        if self._csrf is None:
            key = scope["litestar_app"].state.csrf_key
            self._csrf = CSRFMiddleware(self.app, CSRFConfig(
                secret=key, cookie_name=CSRF_COOKIE, header_name=CSRF_HEADER, cookie_httponly=False,
                cookie_samesite="strict", cookie_secure=False, cookie_path="/"))
        return self._csrf

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        how = credentials(scope)
        if how is not None and how[0] == "bearer":
            return await self.app(scope, receive, send)
        guarded = (scope["method"] in SAFE_METHODS or how is not None
                   or scope["path"].rstrip("/") in SESSION_ROUTES)
        if not guarded:
            return await self.app(scope, receive, send)
        try:
            await self._middleware(scope)(scope, receive, send)
        except PermissionDeniedException:
            raise Problem(403, "csrf_token", f"a request signed in by its session cookie carries the "
                                             f"{CSRF_COOKIE} cookie's value in the {CSRF_HEADER} header; this "
                                             "one does not (reload the page)") from None
