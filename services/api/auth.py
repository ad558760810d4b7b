"""Who is asking: a request's bearer token or session cookie resolved to a :class:`Session`, once per request,
and kept per process (the rows themselves are the token store's, ``services/tokens.py``). Roles: the
organiser of a championship (its creator), referees (granted by the organiser, or on a single table),
players (bound to a seat by the table's ``table_opened`` event), spectators (any user).
"""

from __future__ import annotations

import datetime as dt
import time
from collections import OrderedDict
from collections.abc import Callable, MutableMapping
from typing import Any

from litestar import Request

from services.api.problems import Problem
from services.api.sessions import credentials
from services.tokens import TOKENS_PREFIX, Session, Tokens, User, token_hash

SCOPE_KEY = "baloot.session"      # where a request's resolved session (or its refusal) is kept


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

    def __init__(self, pool, *, cache_size: int = 10_000, recheck_seconds: float | None = None,
                 clock: Callable[[], float] = time.monotonic, listener=None):
        self.tokens = Tokens(pool)
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
        found = await self.tokens.find(digest)
        if found is not None and found.via != via:
            found = None                    # a session's token is no bearer token, nor the other way round
        if found is None or found.revoked or found.expired:
            self._forget(digest)
            raise _bad_token(f"this {what} belongs to no user" if found is None
                             else f"{what} revoked" if found.revoked else f"{what} expired")
        session = Session(found.user, digest, found.expires_at, via)
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
        return await self.tokens.issue(user_id, via)

    async def revoke(self, session: Session) -> None:
        """Revoke one token, at once in this process (and the user's live streams everywhere recheck theirs)."""
        self._forget(session.token_hash)
        await self.tokens.revoke(session.token_hash, session.user.user_id)

    async def check(self, session: Session) -> str | None:
        """Why ``session``'s token no longer holds (revoked, expired), asking the database; None if it does."""
        why = await self.tokens.holds(session.token_hash)
        if why is None:
            return None
        self._forget(session.token_hash)
        return f"{'session' if session.via == 'session' else 'token'} {why}"

    async def revoke_all(self, user_id: str, *, via: str | None = None, keep: bytes | None = None) -> int:
        """Revoke every token of ``user_id`` (only those ``via`` one way, when given; all but ``keep``), at once
        in this process; returns how many were still good."""
        for digest in [d for d, s in self._cache.items() if s.user.user_id == user_id and d != keep
                       and via in (None, s.via)]:
            self._forget(digest)
        return await self.tokens.revoke_all(user_id, via, keep)
