"""Identity and access: bearer tokens per user, roles granted on championships and tables.

A token is 32 random bytes (url-safe base64); only its SHA-256 is stored. Roles: the organiser of a
championship (its creator), referees (granted by the organiser, or on a single table), players (bound to a
seat by the table's ``table_opened`` event), spectators (any user).
"""

from __future__ import annotations

import hashlib
import secrets
import uuid

import asyncpg
import msgspec
from litestar import Request

from services.api.problems import Problem


class User(msgspec.Struct, frozen=True):
    user_id: str
    name: str
    kind: str = "human"


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


async def create_user(pool: asyncpg.Pool, name: str, kind: str = "human") -> tuple[User, str]:
    """A new user and its bearer token (shown once)."""
    token = secrets.token_urlsafe(32)
    user = User(uuid.uuid4().hex, name, kind)
    await pool.execute("INSERT INTO users (user_id, name, kind, token_hash) VALUES ($1, $2, $3, $4)",
                       user.user_id, name, kind, token_hash(token))
    return user, token


class Authenticator:
    """Resolves ``Authorization: Bearer <token>``; users never change, so found ones are cached."""

    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool
        self._cache: dict[bytes, User] = {}

    async def user(self, request: Request) -> User:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Problem(401, "bad_token", "send Authorization: Bearer <token> (POST /users gives one)",
                          "missing or malformed token")
        digest = token_hash(token.strip())
        user = self._cache.get(digest)
        if user is None:
            row = await self.pool.fetchrow("SELECT user_id, name, kind FROM users WHERE token_hash = $1", digest)
            if row is None:
                raise Problem(401, "bad_token", "this token belongs to no user", "unknown token")
            user = self._cache[digest] = User(row["user_id"], row["name"], row["kind"])
        return user


async def grant(db, scope: str, scope_id: str, user_id: str, role: str) -> None:
    await db.execute("INSERT INTO grants (scope, scope_id, user_id, role) VALUES ($1, $2, $3, $4) "
                     "ON CONFLICT DO NOTHING", scope, scope_id, user_id, role)


async def has_role(db, user_id: str, role: str, *scopes: tuple[str, str | None]) -> bool:
    """Whether ``user_id`` holds ``role`` on any of ``scopes`` ((scope, id) pairs; None ids are skipped)."""
    for scope, scope_id in scopes:
        if scope_id is None:
            continue
        found = await db.fetchval("SELECT true FROM grants WHERE scope = $1 AND scope_id = $2 AND user_id = $3 "
                                  "AND role = $4", scope, scope_id, user_id, role)
        if found:
            return True
    return False


def rate_limit_identity(request: Request) -> str:
    """Rate limits apply per token (hashed); requests without one share their client address's bucket."""
    header = request.headers.get("authorization", "")
    if header:
        return "t:" + hashlib.sha256(header.encode()).hexdigest()[:32]
    client = request.client
    return "a:" + (client.host if client else "unknown")
