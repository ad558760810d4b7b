"""Rate limits: per resolved user, per client address for sign-ups and for failed authentication; and the
sign-in throttle (:class:`SignInThrottle`), kept in PostgreSQL.

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

UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
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


RESERVE = """
WITH a AS (
    INSERT INTO sign_in_addresses AS a (address, window_start, failures, next_at) VALUES ($2, $3, 1, 0)
    ON CONFLICT (address) DO UPDATE SET
        window_start = CASE WHEN a.window_start <= $3 - $7 THEN $3 ELSE a.window_start END,
        failures = CASE WHEN a.window_start <= $3 - $7 THEN 1 ELSE a.failures + 1 END,
        next_at = CASE WHEN a.window_start > $3 - $7 AND a.failures + 1 > $6 THEN $3 + $8 ELSE a.next_at END
    WHERE a.next_at <= $3 OR a.window_start <= $3 - $7
    RETURNING failures),
p AS (
    INSERT INTO sign_in_failures AS f (login, address, failures, next_at, last_at)
    SELECT $1, $2, 1, CASE WHEN $4 <= 1 THEN $3 + least(2.0, $5) ELSE 0 END, $3 FROM a
    ON CONFLICT (login, address) DO UPDATE SET
        failures = CASE WHEN f.last_at <= $3 - $9 THEN 1 ELSE f.failures + 1 END,
        next_at = CASE WHEN f.last_at > $3 - $9 AND f.failures + 1 >= $4
                       THEN $3 + least(power(2.0, f.failures + 2 - $4), $5) ELSE f.next_at END,
        last_at = $3
    WHERE f.next_at <= $3 OR f.last_at <= $3 - $9
    RETURNING failures)
SELECT (SELECT failures FROM a) AS address, (SELECT failures FROM p) AS pair
"""


class SignInThrottle:
    """Wrong passwords, slowed per (login, client address) pair and paced per address; kept in PostgreSQL.

    Every attempt is reserved before its password is checked, in one statement (so a concurrent burst, in
    one API process or across several, cannot get more checks than the rule allows), and a success clears
    its pair (and gives the address its attempt back):

    - a pair has ``free`` failures; from then on each next attempt waits 2, 4, 8, ... s, at most
      ``max_wait`` (OWASP's slowing, never a lock: the owner of a login is not locked out by someone else
      guessing it from another address, nor from his own address for longer than the wait); a pair's count
      is forgotten ``forget`` s after its last failure;
    - an address has ``address_limit`` failures per ``address_window`` across logins; past them it may try
      once every ``address_pace`` s (a venue's shared Wi-Fi is slowed by a guesser there, not shut).

    A refused attempt is ``429 rate_limited`` with ``Retry-After``. ``clock``: seconds since the epoch
    (every API process must agree on it; tests inject one).
    """

    def __init__(self, *, free: int = 3, max_wait: float = 900.0, address_limit: int = 100,
                 address_window: float = 3600.0, address_pace: float = 10.0, forget: float = 86400.0,
                 clock=time.time):
        self.free, self.max_wait, self.forget = free, max_wait, forget
        self.address_limit, self.address_window, self.address_pace = address_limit, address_window, address_pace
        self.clock = clock
        self._reserved = 0

    PRUNE_EVERY = 1000          # reservations (in this process) between two sweeps of forgotten counts

    async def reserve(self, db, login: str, address: str, detail: str = "too many wrong passwords; try again "
                                                                         "later") -> None:
        """Count an attempt of ``login`` from ``address`` before its password is checked; RateLimited when
        the pair or the address must wait (nothing counted then)."""
        now = self.clock()
        self._reserved += 1
        if self._reserved % self.PRUNE_EVERY == 0:
            await self.prune(db, now)
        row = await db.fetchrow(RESERVE, login, address, now, self.free, self.max_wait, self.address_limit,
                                self.address_window, self.address_pace, self.forget)
        if row["address"] is not None and row["pair"] is not None:
            return
        if row["address"] is not None:               # the address's attempt is given back: none was made
            await db.execute("UPDATE sign_in_addresses SET failures = greatest(failures - 1, 0) "
                             "WHERE address = $1", address)
        wait = await db.fetchval(
            "SELECT greatest((SELECT max(next_at) FROM sign_in_failures WHERE login = $1 AND address = $2),"
            " (SELECT max(next_at) FROM sign_in_addresses WHERE address = $2))", login, address)
        raise RateLimited("rate_limited", detail, (wait or now) - now)

    async def prune(self, db, now: float) -> None:
        """Drop the counts nothing remembers any more (a pair a day after its last failure, an address past
        its window and its pace), so that the tables hold only live ones."""
        await db.execute("DELETE FROM sign_in_failures WHERE last_at <= $1::float8 - $2::float8 "
                         "AND next_at <= $1::float8", now, self.forget)
        await db.execute("DELETE FROM sign_in_addresses WHERE window_start <= $1::float8 - $2::float8 "
                         "AND next_at <= $1::float8", now, self.address_window)

    async def give_back(self, db, login: str, address: str) -> None:
        """The attempt was refused before anything was guessed (a good code with a refused new password): it
        counts for nothing, and clears nothing either (it is no success)."""
        await db.execute(
            "WITH p AS (UPDATE sign_in_failures SET failures = greatest(failures - 1, 0), "
            "next_at = CASE WHEN failures - 1 < $3::int THEN 0 ELSE next_at END WHERE login = $1 AND address = $2) "
            "UPDATE sign_in_addresses SET failures = greatest(failures - 1, 0), "
            "next_at = CASE WHEN failures - 1 <= $4::int THEN 0 ELSE next_at END WHERE address = $2",
            login, address, self.free, self.address_limit)

    async def succeeded(self, db, login: str, address: str) -> None:
        """The right password: the pair starts afresh, and the address's attempt was no failure."""
        await db.execute("WITH p AS (DELETE FROM sign_in_failures WHERE login = $1 AND address = $2) "
                         "UPDATE sign_in_addresses SET failures = greatest(failures - 1, 0) WHERE address = $2",
                         login, address)

    @classmethod
    def configure(cls, sign_in_fail_limit: tuple[str, int] | None = None, **options) -> SignInThrottle:
        """From the arguments, else the environment: ``BALOOT_SIGNIN_FREE_FAILURES`` (default 3) per pair,
        then waits doubling from 2 s up to ``BALOOT_SIGNIN_MAX_WAIT`` s (default 900); per address
        ``BALOOT_SIGNIN_FAIL_LIMIT`` failures an hour (default 100, or ``sign_in_fail_limit``, a (unit,
        count) pair), then one attempt every ``BALOOT_SIGNIN_ADDRESS_PACE`` s (default 10)."""
        env = os.environ.get
        unit, count = sign_in_fail_limit or ("hour", int(env("BALOOT_SIGNIN_FAIL_LIMIT", "100")))
        settings = {"free": int(env("BALOOT_SIGNIN_FREE_FAILURES", "3")),
                    "max_wait": float(env("BALOOT_SIGNIN_MAX_WAIT", "900")),
                    "address_limit": count, "address_window": float(UNITS[unit]),
                    "address_pace": float(env("BALOOT_SIGNIN_ADDRESS_PACE", "10"))}
        return cls(**{**settings, **options})


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
