"""Identity and access: bearer tokens and browser sessions per user, roles granted on championships and tables.

A token is 32 random bytes (url-safe base64); only its SHA-256 is stored, in ``tokens`` with an expiry
(``BALOOT_TOKEN_DAYS``, default 30) and a revocation time. A user may hold several tokens. A browser's
session is such a token too (``via = 'session'``), sent in a cookie instead of the ``Authorization``
header (``services/api/sessions.py``). Roles: the
organiser of a championship (its creator), referees (granted by the organiser, or on a single table),
players (bound to a seat by the table's ``table_opened`` event), spectators (any user).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import secrets
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, MutableMapping
from typing import Any

import asyncpg
import msgspec
from litestar import Request

from services.accounts import name_key, name_taken, normalise_name
from services.api.problems import Problem
from services.api.sessions import credentials
from services.eventstore import CHANNEL

DEFAULT_TOKEN_DAYS = 30.0
SCOPE_KEY = "baloot.session"      # where a request's resolved session (or its refusal) is kept


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


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def token_days() -> float:
    """How long a new token is good for: ``BALOOT_TOKEN_DAYS`` (default 30)."""
    return float(os.environ.get("BALOOT_TOKEN_DAYS", DEFAULT_TOKEN_DAYS))


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


TOKENS_PREFIX = "tokens-"


def tokens_stream(user_id: str) -> str:
    """The name a revocation of ``user_id``'s tokens is announced under (the NOTIFY the appends use)."""
    return TOKENS_PREFIX + user_id


def _bad_token(detail: str) -> Problem:
    return Problem(401, "bad_token", detail, "missing, malformed, unknown, expired or revoked token")


class Authenticator:
    """Resolves ``Authorization: Bearer <token>``, or else a session cookie, to a :class:`Session`, once per
    request.

    Found tokens are kept in an LRU of ``cache_size`` entries, each trusted for ``recheck_seconds`` before
    the database is asked again. A revoked token stops working at once in the process that revoked it (its
    entries are dropped) and, given the process's ``listener``, at once in every other one too (a revocation
    is announced on the notification channel, ``tokens_stream``: the entries of that user are dropped), the
    recheck (``LISTENING_RECHECK``, 5 min) then being only the backstop; after a notification naming nothing
    (the LISTEN connection was lost meanwhile) every entry is asked again within ``RECHECK``. Without a
    listener the recheck is ``RECHECK`` (30 s), and a revocation elsewhere takes that long. An expired token
    stops at its expiry everywhere (checked against the cached expiry).
    The session (or the refusal) is stored on the request's ASGI scope, so the rate limiter and the
    handler share one resolution.
    """

    RECHECK = 30.0
    LISTENING_RECHECK = 300.0

    def __init__(self, pool: asyncpg.Pool, *, cache_size: int = 10_000, recheck_seconds: float | None = None,
                 clock: Callable[[], float] = time.monotonic, listener=None):
        self.pool = pool
        self.cache_size = cache_size
        self.recheck_seconds = recheck_seconds if recheck_seconds is not None else \
            self.LISTENING_RECHECK if listener is not None else self.RECHECK
        self.clock = clock
        self._cache: OrderedDict[bytes, Session] = OrderedDict()      # digest -> session
        # digest -> when the database last said it holds (apart: a float per recheck, no new tracked object)
        self._checked: dict[bytes, float] = {}
        if listener is not None:
            listener.watch_prefix(TOKENS_PREFIX, self._tokens_changed)

    @property
    def cached(self) -> int:
        """How many sessions this process keeps (at most ``cache_size``)."""
        return len(self._cache)

    def _tokens_changed(self, name: str | None) -> None:
        """A user's tokens were revoked somewhere (``name``: his ``tokens_stream``): his entries are dropped;
        None (notifications may have been missed): every entry is asked again within ``RECHECK``."""
        if name is None:
            due = self.clock() - self.recheck_seconds + self.RECHECK
            for digest, at in self._checked.items():
                if at > due:
                    self._checked[digest] = due
            return
        user_id = name[len(TOKENS_PREFIX):]
        for digest in [d for d, s in self._cache.items() if s.user.user_id == user_id]:
            self._forget(digest)

    async def user(self, request: Request) -> User:
        return (await self.session(request.scope)).user

    async def session(self, scope: MutableMapping[str, Any]) -> Session:
        """The request's session, resolved on first use and kept on its scope; a refusal is kept too."""
        found = scope.get(SCOPE_KEY)
        if found is None:
            how = credentials(scope)
            try:
                if how is None:
                    raise _bad_token("sign in (POST /session), or send Authorization: Bearer <token> "
                                     "(POST /users gives one)")
                found = await (self.resolve(how[1]) if how[0] == "bearer" else self.lookup(how[1], "session"))
            except Problem as refusal:
                found = refusal
            scope[SCOPE_KEY] = found
        if isinstance(found, Problem):
            raise found
        return found

    async def resolve(self, header: str) -> Session:
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise _bad_token("send Authorization: Bearer <token> (POST /users gives one)")
        return await self.lookup(token)

    async def lookup(self, token: str, via: str = "bearer") -> Session:
        """The session of ``token``, sent as ``via`` says (a session token only counts from its cookie)."""
        digest = token_hash(token)
        what = "session" if via == "session" else "token"
        cached = self._cache.get(digest)
        if cached is not None and cached.via != via:
            # A session's token is no bearer token, nor the other way round, cached or not: the kind is
            # the token's own (its row's ``via``), and the cache keeps it beside the user.
            raise _bad_token(f"this {what} belongs to no user")
        if cached is not None:
            if dt.datetime.now(dt.timezone.utc) >= cached.expires_at:
                self._forget(digest)
                raise _bad_token(f"{what} expired")
            if self.clock() - self._checked[digest] < self.recheck_seconds:
                self._cache.move_to_end(digest)
                return cached
        row = await self.pool.fetchrow(
            "SELECT u.user_id, u.name, u.kind, t.expires_at, t.via, t.revoked_at IS NOT NULL AS revoked, "
            "t.expires_at <= now() AS expired FROM tokens t JOIN users u USING (user_id) WHERE t.token_hash = $1",
            digest)
        if row is not None and row["via"] != via:
            row = None                      # a session's token is no bearer token, nor the other way round
        if row is None or row["revoked"] or row["expired"]:
            self._forget(digest)
            raise _bad_token(f"this {what} belongs to no user" if row is None
                             else f"{what} revoked" if row["revoked"] else f"{what} expired")
        session = Session(User(row["user_id"], row["name"], row["kind"]), digest, row["expires_at"], via)
        if cached is not None and cached == session:
            session = cached            # rechecked and unchanged: the one long kept (no young copy per recheck)
        self._cache[digest] = session
        self._checked[digest] = self.clock()
        self._cache.move_to_end(digest)
        while len(self._cache) > self.cache_size:
            self._checked.pop(self._cache.popitem(last=False)[0], None)
        return session

    def _forget(self, digest: bytes) -> None:
        self._cache.pop(digest, None)
        self._checked.pop(digest, None)

    async def issue(self, user_id: str, via: str = "bearer") -> tuple[str, dt.datetime]:
        return await issue_token(self.pool, user_id, via=via)

    async def revoke(self, session: Session) -> None:
        """Revoke one token, at once in this process (and the user's live streams everywhere recheck theirs)."""
        self._forget(session.token_hash)
        await self.pool.execute("UPDATE tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL",
                                session.token_hash)
        await self._tell_streams(session.user.user_id)

    async def _tell_streams(self, user_id: str) -> None:
        """Wake the live streams of ``user_id`` in every process (the LISTEN path the appends take)."""
        await self.pool.execute("SELECT pg_notify($1, $2)", CHANNEL, tokens_stream(user_id))

    async def check(self, session: Session) -> str | None:
        """Why ``session``'s token no longer holds (revoked, expired), asking the database; None if it does."""
        row = await self.pool.fetchrow("SELECT revoked_at IS NOT NULL AS revoked, expires_at <= now() AS expired "
                                       "FROM tokens WHERE token_hash = $1", session.token_hash)
        if row is None or row["revoked"] or row["expired"]:
            self._forget(session.token_hash)
            what = "session" if session.via == "session" else "token"
            return f"{what} revoked" if row is None or row["revoked"] else f"{what} expired"
        return None

    async def revoke_all(self, user_id: str, *, via: str | None = None, keep: bytes | None = None) -> int:
        """Revoke every token of ``user_id`` (only those ``via`` one way, when given; all but ``keep``), at once
        in this process; returns how many were still good."""
        for digest in [d for d, s in self._cache.items() if s.user.user_id == user_id and d != keep
                       and via in (None, s.via)]:
            self._forget(digest)
        status = await self.pool.execute(
            "UPDATE tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now() "
            "AND ($2::text IS NULL OR via = $2) AND token_hash IS DISTINCT FROM $3", user_id, via, keep)
        await self._tell_streams(user_id)
        return int(status.split()[-1])
