"""The sign-in throttle: wrong passwords (and wrong claim codes) counted per (login, client address) pair and
per address in PostgreSQL, so that every API process applies one rule."""

from __future__ import annotations

import os
import time

from services.errors import TooSoon

UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}

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
        """Count an attempt of ``login`` from ``address`` before its password is checked; TooSoon when
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
        raise TooSoon("rate_limited", detail, (wait or now) - now)

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
