"""The token store: users' bearer tokens and browser sessions as rows of ``tokens``, and new users.

A token is 32 random bytes (url-safe base64); only its SHA-256 is stored, with an expiry
(``BALOOT_TOKEN_DAYS``, default 30) and a revocation time. A user may hold several tokens. A browser's
session is such a token too (``via = 'session'``), sent in a cookie instead of the ``Authorization`` header.
What a request's credentials resolve to, cached per process, is the HTTP door's (``services/api/auth.py``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import secrets
import uuid

import asyncpg
import msgspec

from services.accounts import name_key, name_taken, normalise_name
from services.eventstore import CHANNEL

DEFAULT_TOKEN_DAYS = 30.0
TOKENS_PREFIX = "tokens-"


class User(msgspec.Struct, frozen=True):
    user_id: str
    name: str
    kind: str = "human"


class Session(msgspec.Struct, frozen=True):
    """A user as a request authenticated it: which token, good until when, and how it came (``via``: a
    bearer token, or a browser session's cookie)."""

    user: User
    token_hash: bytes
    expires_at: dt.datetime
    via: str = "bearer"


class Found(msgspec.Struct, frozen=True):
    """A stored token as the store finds it: whose, until when, how it is sent, and whether it still holds."""

    user: User
    expires_at: dt.datetime
    via: str
    revoked: bool
    expired: bool


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def token_days() -> float:
    """How long a new token is good for: ``BALOOT_TOKEN_DAYS`` (default 30)."""
    return float(os.environ.get("BALOOT_TOKEN_DAYS", DEFAULT_TOKEN_DAYS))


def tokens_stream(user_id: str) -> str:
    """The name a revocation of ``user_id``'s tokens is announced under (the NOTIFY the appends use)."""
    return TOKENS_PREFIX + user_id


async def issue_token(db, user_id: str, days: float | None = None, via: str = "bearer") -> tuple[str, dt.datetime]:
    """A new bearer token (or, ``via`` "session", a browser session) for ``user_id``, shown once, and when it
    expires."""
    token = secrets.token_urlsafe(32)
    expires_at = await db.fetchval(
        "INSERT INTO tokens (token_hash, user_id, expires_at, via) VALUES ($1, $2, now() + make_interval(secs => $3), "
        "$4) RETURNING expires_at", token_hash(token), user_id,
        (days if days is not None else token_days()) * 86400.0, via)
    return token, expires_at


async def register(pool: asyncpg.Pool, name: str, kind: str = "human",
                   days: float | None = None) -> tuple[User, str, dt.datetime]:
    """A new user with its first token: (user, token, expires_at). A person's name is normalised and is
    nobody else's (``services.accounts.normalise_name``, ``name_taken``); bots may share names."""
    key = None
    if kind == "human":
        name = normalise_name(name)
        key = name_key(name)
    user = User(uuid.uuid4().hex, name, kind)
    try:
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("INSERT INTO users (user_id, name, kind, name_key) VALUES ($1, $2, $3, $4)",
                               user.user_id, name, kind, key)
            token, expires_at = await issue_token(conn, user.user_id, days)
    except asyncpg.UniqueViolationError:
        raise name_taken(name) from None
    return user, token, expires_at


async def create_user(pool: asyncpg.Pool, name: str, kind: str = "human") -> tuple[User, str]:
    """A new user and its bearer token (shown once); for code that makes users (bots, tests)."""
    user, token, _ = await register(pool, name, kind)
    return user, token


class Tokens:
    """The ``tokens`` rows of ``pool``: found by digest, issued, revoked (one or all of a user's), each
    revocation announced on the notification channel so that every process's live streams recheck."""

    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    async def find(self, digest: bytes) -> Found | None:
        row = await self.pool.fetchrow(
            "SELECT u.user_id, u.name, u.kind, t.expires_at, t.via, t.revoked_at IS NOT NULL AS revoked, "
            "t.expires_at <= now() AS expired FROM tokens t JOIN users u USING (user_id) WHERE t.token_hash = $1",
            digest)
        if row is None:
            return None
        return Found(User(row["user_id"], row["name"], row["kind"]), row["expires_at"], row["via"], row["revoked"],
                     row["expired"])

    async def holds(self, digest: bytes) -> str | None:
        """Why the token no longer holds ("revoked", also when it is gone; "expired"); None if it does."""
        row = await self.pool.fetchrow("SELECT revoked_at IS NOT NULL AS revoked, expires_at <= now() AS expired "
                                       "FROM tokens WHERE token_hash = $1", digest)
        if row is None or row["revoked"]:
            return "revoked"
        return "expired" if row["expired"] else None

    async def issue(self, user_id: str, via: str = "bearer") -> tuple[str, dt.datetime]:
        return await issue_token(self.pool, user_id, via=via)

    async def revoke(self, digest: bytes, user_id: str) -> None:
        await self.pool.execute("UPDATE tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL",
                                digest)
        await self._announce(user_id)

    async def revoke_all(self, user_id: str, via: str | None, keep: bytes | None) -> int:
        """Revoke ``user_id``'s good tokens (only those ``via`` one way, when given; all but ``keep``); how many."""
        status = await self.pool.execute(
            "UPDATE tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now() "
            "AND ($2::text IS NULL OR via = $2) AND token_hash IS DISTINCT FROM $3", user_id, via, keep)
        await self._announce(user_id)
        return int(status.split()[-1])

    async def _announce(self, user_id: str) -> None:
        """Wake the live streams of ``user_id`` in every process (the LISTEN path the appends take)."""
        await self.pool.execute("SELECT pg_notify($1, $2)", CHANNEL, tokens_stream(user_id))
