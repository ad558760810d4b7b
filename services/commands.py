"""The one command loop every stream's service runs (tables, championships, check-ins, team invitations, daily
sets): read the stream's fold, decide, append at the version read, and on a conflict read and decide again
(``CommandLoop``); with what it needs: a bounded cache of folded streams, command ids that belong to their
sender, and the outcome of a command.

A command id is the sender's own: a stream remembers, per (actor, command id), the version the command led
to and a digest of what it said. The same id from the same sender with the same command is a retry (its
first outcome is returned, nothing is stored); with another command it is refused; from another sender it
is another command. Event ids derive from the stream, the sender and the command id, so a retry that races
its original stores nothing twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import asyncpg
import msgspec
from asyncpg.pgproto.pgproto import UUID as _UUID

from services.anchor import Receipt
from services.errors import Conflict
from services.eventstore import AppendResult, ConcurrencyError, DuplicateEventError, append_reporting

S = TypeVar("S")
Key = tuple[str, str]            # (actor, command id)
Done = tuple[int, str]           # (version after it, digest)


class Applied:
    """The commands a stream has applied, (actor, command id) -> (version after it, digest), kept for the whole
    stream (a retry of any of them is told from a new command). Immutable: ``plus`` makes a new one that shares
    the older entries, a small dict of the latest over a dict of the rest merged every ``RECENT`` commands, so
    that a fold per command copies a few entries, not all of them. Each entry is two strings, which the garbage
    collector does not track (two tuples per command were most of what its young scans walked in a live API)."""

    RECENT = 64
    __slots__ = ("_old", "_new")

    def __init__(self, old: dict[str, str] | None = None, new: dict[str, str] | None = None) -> None:
        self._old = old if old is not None else {}
        self._new = new if new is not None else {}

    @staticmethod
    def _key(key: Key) -> str:
        return f"{key[0]}\x1f{key[1]}"

    def get(self, key: Key) -> Done | None:
        k = self._key(key)
        done = self._new.get(k) or self._old.get(k)
        if done is None:
            return None
        version, _, digest = done.partition(" ")
        return int(version), digest

    def plus(self, applied: dict[Key, Done]) -> Applied:
        """These and ``applied`` (later ones win)."""
        if not applied:
            return self
        new = {**self._new, **{self._key(k): f"{v} {d}" for k, (v, d) in applied.items()}}
        if len(new) > self.RECENT:
            return Applied({**self._old, **new})
        return Applied(self._old, new)

    def __len__(self) -> int:
        return len(self._old) + sum(1 for k in self._new if k not in self._old)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Applied) and {**self._old, **self._new} == {**other._old, **other._new}

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Applied({len(self)} commands)"


NONE_APPLIED = Applied()


class CommandOutcome(msgspec.Struct):
    """What a command did: the stream's version after it, whether it was a retry, its events' tags."""

    version: int
    replayed: bool = False
    events: list[str] = []
    receipts: list[Receipt] = []      # signed stream heads, when the command ended a deal or a game


class StreamCache(Generic[S]):
    """The most recently used folded streams, at most ``size`` of them."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[str, S] = OrderedDict()

    def get(self, key: str) -> S | None:
        return self._items.get(key)

    def put(self, key: str, value: S) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


def command_digest(command) -> str:
    """What a command says, as a short digest: the same id with another command is a different request."""
    return hashlib.sha256(msgspec.json.encode(command)).hexdigest()[:32]


def event_id(namespace: uuid.UUID, stream_key: str, actor: str, command_id: str, k: int) -> uuid.UUID:
    """The id of event ``k`` of a command, made from its name ``"<stream key>/<actor>/<command id>/<k>"`` in
    ``namespace``, so that a command stored twice gives the same ids: the first six bytes are the stream's (the
    SHA-1 of the namespace and stream key), the other ten the name's (its SHA-1), with the version bits of a
    UUID the application makes (RFC 9562, version 8) and the RFC 4122 variant; as asyncpg's UUID (a
    ``uuid.UUID``, made without the stdlib's constructor, a third as dear).

    Why the stream's prefix: the log's unique index of event ids is as large as the log, and a random id puts
    every stored event on a random page of it (at 6.5 million events, 300 MB of index in PostgreSQL's 128 MB of
    shared buffers: a page read, a dirty page written back and a full-page image in the WAL for most appends);
    with the prefix, a stream's events sit together and an append touches its own stream's page, as it does in
    the (stream, version) index. Events stored before this scheme keep their (version 5) ids."""
    prefix = _PREFIXES.get((namespace, stream_key))
    if prefix is None:
        ns = namespace.bytes
        if len(_PREFIXES) >= 65536:
            _PREFIXES.clear()
        prefix = _PREFIXES[(namespace, stream_key)] = (hashlib.sha1(ns + stream_key.encode()).digest()[:6], ns)
    head, ns = prefix
    digest = bytearray(head + hashlib.sha1(ns + f"{stream_key}/{actor}/{command_id}/{k}".encode()).digest()[6:16])
    digest[6] = (digest[6] & 0x0F) | 0x80            # version 8
    digest[8] = (digest[8] & 0x3F) | 0x80            # the RFC 4122 variant
    return _UUID(bytes(digest))


_PREFIXES: dict[tuple[uuid.UUID, str], tuple[bytes, bytes]] = {}     # (namespace, stream key) -> (prefix, namespace bytes)


def replayed(applied: Applied, actor: str, command_id: str, digest: str) -> CommandOutcome | None:
    """The first outcome of a retried command, None for a new one; a reused id with another command is refused."""
    done = applied.get((actor, command_id))
    if done is None:
        return None
    if done[1] != digest:
        raise Conflict("command_id_reused", f"command id {command_id!r} was already used for another command: "
                                            "send a new id for a new command")
    return CommandOutcome(done[0], replayed=True)


def applied_by(rows) -> dict[Key, Done]:
    """The commands stored rows record, from their metadata (decoded once per row: it is JSON)."""
    applied: dict[Key, Done] = {}
    for r in rows:
        meta = r.metadata
        if meta.get("command_id"):
            applied[(meta.get("actor", ""), meta["command_id"])] = (r.version, meta.get("digest", ""))
    return applied


# ---- the loop ----

Also = Callable[[asyncpg.Connection], Awaitable[Any]]      # a write of the append's transaction


class Stale(Exception):
    """The fold a command was decided on was not read from the store (a process's own fold, maybe behind),
    so nothing may be refused or expected of it: read the stream and decide again."""


@dataclass(frozen=True, slots=True)
class Decision:
    """What one attempt decided: the ``events`` and their stored ``rows`` (no rows: nothing to store), appended
    at ``version``; ``check`` and ``also`` run in the append's transaction, before it (e.g. caps counted under
    locks) and after it (e.g. the rows of an index kept with the events, never one without the other);
    ``after``: the fold after the events, when the decider made it (no read back)."""

    events: list
    rows: list
    version: int
    check: Also | None = None
    also: Also | None = None
    after: Any = None


@dataclass(frozen=True, slots=True)
class Step(Generic[S]):
    """What the loop did: the ``fold`` decided on, and either ``replayed`` (a retried command's first outcome:
    nothing decided), or the ``decision`` and, when it stored rows, ``appended`` (``stored`` False: the same
    rows were stored by another delivery of the command at the same moment; ``once``: its rows' ids were stored
    already, by an earlier run of the same command)."""

    fold: S
    decision: Decision | None = None
    appended: AppendResult | None = None
    replayed: CommandOutcome | None = None
    once: bool = False


class CommandLoop:
    """Load a stream's fold, decide, append at the version it was read at; on a conflict (another writer
    moved the stream on: ``ConcurrencyError``; this command stored meanwhile by another process that decided
    it from a newer state, its ids under other events: ``DuplicateEventError``; a fold found ``Stale``) wait
    a moment and do it all again, up to ``attempts`` times, then refuse with ``rule`` (a ``Conflict``).

    The wait after a collision is a few milliseconds at most, growing with the attempts and jittered, so
    that two processes that collided do not collide again in step. A command with an id is idempotent: its
    fold's ``commands`` (``Applied``) tell a retry, whose first outcome is returned (``replayed``), from a
    new command."""

    def __init__(self, pool: asyncpg.Pool, *, attempts: int, rule: str, jitter: float = 0.002):
        self.pool, self.attempts, self.rule, self.jitter = pool, attempts, rule, jitter

    async def run(self, stream: str, load: Callable[[int], Awaitable[S]], decide: Callable[[S], Decision], *,
                  command: tuple[str, str, str] | None = None, once: bool = False, attempts: int | None = None,
                  busy: str) -> Step[S]:
        """Run a command on ``stream``: ``load(attempt)`` gives the fold (attempt 0 may be one the caller holds),
        ``decide(fold)`` the decision (it raises a refusal); ``command`` is (actor, command id, digest) when the
        fold keeps the commands applied (``fold.commands``). With ``once``, a command whose event ids name it
        (not its stream's version) and whose fold keeps no command ids: ids stored already mean it ran before
        (``Step.once``), not a conflict. ``attempts``: this command's, if not the loop's; ``busy``: the
        refusal's message once every attempt met a conflict."""
        collided = False
        for attempt in range(attempts or self.attempts):
            if collided and self.jitter:        # not after a stale fold: no other writer to step aside for
                await asyncio.sleep(random.uniform(0, self.jitter * attempt))
            collided = False
            try:
                fold = await load(attempt)
                if command is not None:
                    retry = replayed(fold.commands, *command)
                    if retry is not None:
                        return Step(fold, replayed=retry)
                decision = decide(fold)
                if not decision.rows:
                    return Step(fold, decision)
                return Step(fold, decision, await self.append(stream, decision))
            except DuplicateEventError:
                if once:
                    return Step(fold, decision, once=True)
                collided = True
            except ConcurrencyError:
                collided = True
            except Stale:
                pass
        raise Conflict(self.rule, busy)

    async def append(self, stream: str, decision: Decision) -> AppendResult:
        """Append a decision's rows at its version, with its writes of the same transaction."""
        if decision.check is None and decision.also is None:
            return await append_reporting(self.pool, stream, decision.version, decision.rows)
        async with self.pool.acquire() as conn, conn.transaction():
            if decision.check is not None:
                await decision.check(conn)
            appended = await append_reporting(conn, stream, decision.version, decision.rows)
            if decision.also is not None:
                await decision.also(conn)
        return appended
