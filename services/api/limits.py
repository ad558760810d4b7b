"""Rate limits: per resolved user, per client address for sign-ups and for failed authentication; with the
sign-in throttle (``services/signin.py``, kept in PostgreSQL) they make the app's ``Limits``.

Keys are never the raw ``Authorization`` header: a token written with other case or spacing resolves to the
same user (and so the same bucket), and a made-up token counts against its address's failed-auth budget,
so guessing tokens is throttled. Buckets are fixed windows kept in this process (an LRU bounded by
``max_keys``), so with N API processes a client gets up to N times the limit; every 429 is a
``rate_limited`` problem document with ``Retry-After``.
"""

from __future__ import annotations

import math
import os
import time
from collections import OrderedDict
from dataclasses import dataclass

from litestar import Litestar

from services.api.problems import Problem
from services.api.sessions import credentials
from services.signin import UNITS, SignInThrottle

SIGN_UP_ROUTES = ("/users", "/accounts")
UNLIMITED_PATHS = ("/schema", "/health")


class RateLimited(Problem):
    """A 429 with ``Retry-After`` (whole seconds, at least 1)."""

    def __init__(self, rule: str, detail: str, retry_after: float):
        super().__init__(429, rule, detail, "too many requests")
        self.headers = {"Retry-After": str(max(1, math.ceil(retry_after)))}


class RateLimiter:
    """``limit`` hits per ``unit`` per key, in fixed windows; the least recently hit keys go first."""

    def __init__(self, unit: str, limit: int, max_keys: int = 100_000, clock=time.monotonic):
        self.seconds = UNITS[unit]
        self.limit = limit
        self.max_keys = max_keys
        self.clock = clock
        self._windows: OrderedDict[str, list] = OrderedDict()     # key -> [window start, hits]

    @property
    def tracked(self) -> int:
        """How many keys have a window kept (at most ``max_keys``; a window that ended is dropped)."""
        return len(self._windows)

    def hit(self, key: str) -> float | None:
        """Count a hit: None if allowed, else the seconds until the key's window ends."""
        now = self.clock()
        window = self._windows.get(key)
        if window is None or now - window[0] >= self.seconds:
            window = self._windows[key] = [now, 0]
        self._windows.move_to_end(key)
        window[1] += 1
        self._forget_old(now)
        return None if window[1] <= self.limit else window[0] + self.seconds - now

    def blocked(self, key: str, *, spent: bool = False) -> float | None:
        """Whether ``key`` is over its limit now (with ``spent``: has used it all) without counting a hit:
        the seconds left in its window, or None."""
        window = self._windows.get(key)
        if window is None or window[1] < self.limit + (0 if spent else 1):
            return None
        left = window[0] + self.seconds - self.clock()
        return left if left > 0 else None

    def _forget_old(self, now: float) -> None:
        windows = self._windows
        while windows:
            key, (start, _) = next(iter(windows.items()))
            if len(windows) <= self.max_keys and now - start < self.seconds:
                break
            del windows[key]


@dataclass
class Limits:
    """The API's three budgets (each a (unit, count) pair)."""

    requests: RateLimiter            # per user (authenticated) or per address (anonymous)
    signups: RateLimiter             # POST /users and POST /accounts, per address
    failed_auth: RateLimiter         # bad, unknown, expired or revoked tokens, per address
    sign_in: SignInThrottle          # wrong logins or passwords, per (login, address) and per address

    @classmethod
    def configure(cls, rate_limit: tuple[str, int] | None = None, signup_limit: tuple[str, int] | None = None,
                  auth_fail_limit: tuple[str, int] | None = None,
                  sign_in_fail_limit: tuple[str, int] | None = None,
                  sign_in: SignInThrottle | None = None) -> Limits:
        """From the arguments, else the environment.

        ``BALOOT_RATE_LIMIT`` per ``BALOOT_RATE_UNIT`` (default 100 per second), ``BALOOT_SIGNUP_LIMIT``
        per minute (default 10), ``BALOOT_AUTH_FAIL_LIMIT`` per minute (default 20) and
        the sign-in throttle's settings (``SignInThrottle.configure``, or ``sign_in`` as given).
        A caller that passes only ``rate_limit`` (tests) gets it for all but the last.
        """
        env = os.environ.get
        requests = rate_limit or (env("BALOOT_RATE_UNIT", "second"), int(env("BALOOT_RATE_LIMIT", "100")))
        signups = signup_limit or rate_limit or ("minute", int(env("BALOOT_SIGNUP_LIMIT", "10")))
        failed = auth_fail_limit or rate_limit or ("minute", int(env("BALOOT_AUTH_FAIL_LIMIT", "20")))
        return cls(RateLimiter(*requests), RateLimiter(*signups), RateLimiter(*failed),
                   sign_in or SignInThrottle.configure(sign_in_fail_limit))


def client_address(scope) -> str:
    client = scope.get("client")
    return client[0] if client else "unknown"


class Throttle:
    """ASGI middleware: resolve the caller once (kept on the scope for the handler), then count the hit."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith(UNLIMITED_PATHS):
            await self.check(scope)
        await self.app(scope, receive, send)

    @staticmethod
    async def check(scope) -> None:
        state = Litestar.from_scope(scope).state
        limits: Limits = state.limits
        address = client_address(scope)
        if scope["method"] == "POST" and scope["path"].rstrip("/") in SIGN_UP_ROUTES:
            wait = limits.signups.hit(address)
            if wait is not None:
                raise RateLimited("rate_limited", "too many accounts created from this address; try again later",
                                  wait)
            return
        if credentials(scope) is None:
            wait = limits.requests.hit("address:" + address)
            if wait is not None:
                raise RateLimited("rate_limited", "too many requests without a token from this address", wait)
            return
        # An address over its bad-token budget still has its good tokens accepted (others' failures at the
        # same address refuse nobody's valid token); its lookups are then counted as anonymous requests are.
        blocked = limits.failed_auth.blocked(address)
        if blocked is not None:
            wait = limits.requests.hit("address:" + address)
            if wait is not None:
                raise RateLimited("rate_limited", "too many requests with bad tokens from this address", wait)
        try:
            session = await state.auth.session(scope)
        except Problem:
            wait = blocked if blocked is not None else limits.failed_auth.hit(address)
            if wait is not None:
                raise RateLimited("rate_limited", "too many requests with bad tokens from this address",
                                  wait) from None
            return              # the handler refuses it with the 401 kept on the scope
        wait = limits.requests.hit("user:" + session.user.user_id)
        if wait is not None:
            raise RateLimited("rate_limited", "too many requests for this user", wait)
