"""Append to and read from the event log (asyncpg, one round trip per append).

Global order is `(tx_id, position)`, not `position` alone.  A position is taken when a row is inserted,
but becomes visible when its transaction commits, so a lower position can appear after a higher one has
been read.  Every row records the id of the transaction that wrote it (`pg_current_xact_id()`), and
readers only take rows whose transaction is older than the oldest one still running
(`pg_snapshot_xmin(pg_current_snapshot())`): all of those have finished, so nothing can appear behind
the reader any more.  A rolled-back transaction simply stops holding the horizon back, so its gap never
stalls anyone.  Ordering by transaction first is what makes this exact even when a transaction took its
id (by writing something else) before another one took a lower position.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import logging
import operator
import uuid
from collections.abc import Sequence
from typing import Any, NamedTuple

import asyncpg
import msgspec

Db = asyncpg.Pool | asyncpg.Connection

log = logging.getLogger(__name__)

CHANNEL = "baloot_events"  # notified after each append; the payload is a stream id or empty


class ConcurrencyError(Exception):
    """The stream is not at the version the writer expected: reload, decide again, retry."""

    def __init__(self, stream: str, expected: int | None, actual: int | None, reason: str = "") -> None:
        self.stream, self.expected, self.actual = stream, expected, actual
        found = f"is at version {actual}" if actual is not None else "was appended to concurrently"
        super().__init__(f"stream {stream!r} {found}, expected version {expected}{reason}")


class DuplicateEventError(Exception):
    """Event ids already stored, but not as an exact retry of this append."""


class Checkpoint(NamedTuple):
    """A place in the global order: after every event at or before `(tx_id, position)`."""

    tx_id: int
    position: int


START = Checkpoint(0, 0)


class NewEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event to append.  `data` is any JSON-able value, or `msgspec.Raw` JSON already encoded.

    Keep the same object (same `event_id`) to retry an append: a retry of stored ids is a no-op.
    `metadata` holds correlation_id, causation_id, actor and the like.
    """

    event_type: str
    data: Any
    schema_version: int = 1
    event_id: uuid.UUID = msgspec.field(default_factory=uuid.uuid4)
    metadata: dict[str, Any] | None = None


_COLUMNS = "position, tx_id, stream_id, version, event_id, event_type, schema_version, data, metadata, recorded_at"


class RecordedEvent(asyncpg.Record):
    """A stored event: a row built by asyncpg itself (no copy), with named fields.

    `data` and `metadata` decode the stored JSON on each access; `data_json` is the JSON text.
    """

    position = property(operator.itemgetter(0))
    tx_id = property(operator.itemgetter(1))
    stream_id = property(operator.itemgetter(2))
    version = property(operator.itemgetter(3))
    event_id = property(operator.itemgetter(4))
    event_type = property(operator.itemgetter(5))
    schema_version = property(operator.itemgetter(6))
    data_json = property(operator.itemgetter(7))
    recorded_at = property(operator.itemgetter(9))

    @property
    def data(self) -> Any:
        return msgspec.json.decode(self[7])

    @property
    def metadata(self) -> dict[str, Any]:
        return msgspec.json.decode(self[8])

    @property
    def checkpoint(self) -> Checkpoint:
        return Checkpoint(self[1], self[0])

    def __repr__(self) -> str:
        return (f"<RecordedEvent {self[2]}@{self[3]} {self[5]} v{self[6]} "
                f"position={self[0]} tx={self[1]}>")


_APPEND = "SELECT append_events($1, $2, $3, $4, $5, $6, $7, $8)"
# now() is the transaction's time: the stored events' recorded_at (an autocommitted append is one transaction).
_APPEND_REPORTING = "SELECT version, stored, hash, now() FROM append_events_head($1, $2, $3, $4, $5, $6, $7, $8)"

_READ_STREAM = f"""
SELECT {_COLUMNS} FROM events
 WHERE stream_id = $1 AND version >= $2 ORDER BY version LIMIT $3"""

_READ_ALL = f"""
SELECT {_COLUMNS} FROM events
 WHERE (tx_id, position) > ($1::xid8, $2::bigint)
   AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY tx_id, position
 LIMIT $3"""

_READ_STREAMS = f"""
SELECT {_COLUMNS} FROM events
 WHERE (tx_id, position) > ($1::xid8, $2::bigint)
   AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
   AND starts_with(stream_id, $4)
   AND ($5::text[] IS NULL OR event_type = ANY($5)){{known}}
 ORDER BY tx_id, position
 LIMIT $3"""
# The prefixes of sparse readers with an index of their own in the log's order (migrations/0020_sparse_readers.sql),
# and the kinds of events indexed so for the readers of a few kinds across the log (0021_sparse_kinds.sql).
INDEXED_PREFIXES = ("championship-",)
INDEXED_KINDS = frozenset((
    "championship_created", "team_registered", "registration_closed", "draw_committed", "draw_made", "round_paired",
    "match_result_recorded", "match_forfeited", "match_double_forfeited", "championship_finished", "table_opened",
    "referee_called", "ruling_made", "game_ended", "balut_ended"))


@functools.lru_cache(maxsize=64)
def _read_streams_sql(prefix: str, event_types: tuple[str, ...] | None = None) -> str:
    """The read of ``prefix``'s streams (of ``event_types`` only, if given), the prefix or the kinds also written
    into the statement as constants when its readers have an index of their own: a prepared statement's
    generic plan, made without the parameters' values, cannot use a partial index, and a batch of the
    championships' events (one in 300 of a big log) would walk the whole log's order index from its checkpoint.
    Only there: with the event types written in for the fair-play reader (three kinds of table events, not
    sparse), the planner chose a scan of all their events in the log, a second a batch, over the order index
    from its checkpoint. The parameters stay: every variant takes the same arguments."""
    known = f"\n   AND starts_with(stream_id, '{prefix}')" if prefix in INDEXED_PREFIXES else ""
    if not known and event_types and INDEXED_KINDS.issuperset(event_types):
        known = "\n   AND event_type IN (" + ", ".join(f"'{t}'" for t in sorted(event_types)) + ")"
    return _READ_STREAMS.format(known=known)

_HORIZON = """
SELECT tx_id, position FROM events
 WHERE (tx_id, position) > ($1::xid8, $2::bigint) AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY tx_id DESC, position DESC LIMIT 1"""

# A plain ORDER BY ... LIMIT 1, not an EXISTS: for an EXISTS of the row comparison, with the checkpoint some
# thousands of events behind the head (a projection runner's, between batches), the planner expects matches
# all over the table and scans it from the start, while they are all at its end (a third of a second at 1.5
# million events, on every idle poll of every runner); this walks the (tx_id, position) index from the checkpoint.
_PENDING = """
SELECT 1 FROM events WHERE (tx_id, position) > ($1::xid8, $2::bigint) ORDER BY tx_id, position LIMIT 1"""


def _json(value: Any) -> str:
    if isinstance(value, msgspec.Raw):
        return bytes(value).decode()
    return msgspec.json.encode(value).decode()


class _VersionStored(NamedTuple):
    version: int          # the stream's version after the append
    stored: bool          # False: an exact retry of events already stored (or an empty append)


class AppendResult(_VersionStored):
    """What an append did, `head_hash`: the chain hash of the stream's head (what a receipt signs), and
    `recorded_at`: the stored events' time (None when nothing was stored).

    Still a pair, so that `version, stored = await append_reporting(...)` and comparisons with
    `(version, stored)` keep working; the hash and time ride along as attributes.
    """

    head_hash: bytes | None
    recorded_at: datetime.datetime | None

    def __new__(cls, version: int, stored: bool, head_hash: bytes | None = None,
                recorded_at: datetime.datetime | None = None) -> AppendResult:
        result = super().__new__(cls, version, stored)
        result.head_hash = head_hash
        result.recorded_at = recorded_at if stored else None
        return result

    def __repr__(self) -> str:
        hash_hex = self.head_hash.hex()[:16] if self.head_hash else None
        return f"AppendResult(version={self.version}, stored={self.stored}, head_hash={hash_hex})"


def _columns(events: Sequence[NewEvent]) -> tuple[list, list, list, list, list]:
    """An append's events as the append function's arrays: ids, types, schema versions, data, metadata."""
    encoded: dict[int, str] = {}          # a command's events share one metadata object: encoded once

    def metadata(m) -> str | None:
        if m is None:
            return None
        text = encoded.get(id(m))
        if text is None:
            text = encoded[id(m)] = _json(m)
        return text

    return ([e.event_id for e in events], [e.event_type for e in events], [e.schema_version for e in events],
            [_json(e.data) for e in events], [metadata(e.metadata) for e in events])


def _raise_refusal(exc: asyncpg.PostgresError, stream: str, expected: int | None) -> None:
    """The append function's own refusals as the store's errors: a stale version, ids stored otherwise."""
    sqlstate = getattr(exc, "sqlstate", None)
    if sqlstate == "BA001":
        reason = "" if "younger transaction" not in str(exc) else " (retry in a new transaction)"
        raise ConcurrencyError(stream, expected, int(exc.detail), reason) from None
    if sqlstate == "BA002":
        raise DuplicateEventError(str(exc)) from None


async def append(db: Db, stream: str, expected_version: int | None, events: Sequence[NewEvent]) -> int:
    """Append `events` to `stream` if it is at `expected_version` (None: any); return its new version.

    0 is the version of a stream with no events.  Raises ConcurrencyError on a stale version and
    DuplicateEventError when some ids are stored but this is not an exact retry of them.
    """
    return (await _append(db, stream, expected_version, events, _APPEND)).version


async def append_reporting(db: Db, stream: str, expected_version: int | None,
                           events: Sequence[NewEvent]) -> AppendResult:
    """As `append`, also saying whether anything was stored (an exact retry stores nothing) and the head hash."""
    return await _append(db, stream, expected_version, events, _APPEND_REPORTING)


async def _append(db: Db, stream: str, expected_version: int | None, events: Sequence[NewEvent],
                  sql: str) -> AppendResult:
    if not events:
        version = await stream_version(db, stream)
        return AppendResult(version, False, await head_hash(db, stream, version))
    ids, types, versions, data, metadata = _columns(events)
    # Through a pool the append commits on its own, so the wake-up can follow the commit (see _NotifySender);
    # on a connection, which may be inside a transaction, the database sends it at commit.
    notify_in_db = not isinstance(db, asyncpg.Pool)
    try:
        row = await db.fetchrow(sql, stream, expected_version, ids, types, versions, data, metadata, notify_in_db)
    except asyncpg.PostgresError as exc:
        _raise_refusal(exc, stream, expected_version)
        if isinstance(exc, asyncpg.UniqueViolationError):
            # Another writer inserted the same version or ids first; it had not committed when we checked.
            # It may have been this very append, retried concurrently: then all is well.
            if not _in_transaction(db) and await _stored_as_exact_retry(db, stream, expected_version, ids):
                version = await stream_version(db, stream)
                return AppendResult(version, False, await head_hash(db, stream, version))
            if exc.constraint_name == "events_event_id_key":
                raise DuplicateEventError(f"an event id of this append to {stream!r} is already stored "
                                          f"elsewhere: {exc.detail}") from None
            actual = None if _in_transaction(db) else await stream_version(db, stream)
            raise ConcurrencyError(stream, expected_version, actual) from None
        raise
    version, stored = row[0], (row[1] if len(row) > 1 else True)
    if not notify_in_db:
        _sender(db).poke(stream, version)
    return AppendResult(version, stored, *row[2:])


async def append_many(pool: asyncpg.Pool, appends: Sequence[tuple[str, int | None, Sequence[NewEvent]]],
                      also: Sequence[tuple[str, Sequence[tuple]]] = ()) -> datetime.datetime:
    """Several appends (stream, expected version, events) in one transaction and one round trip, all or none,
    with ``also`` (statements and their argument tuples, run in the same transaction, e.g. an index of the
    streams); returns the events' stored time. For a batch of new streams (a round's tables): a conflict
    anywhere fails all of them (ConcurrencyError, DuplicateEventError or asyncpg's UniqueViolationError for
    a concurrent writer of the same streams), and the caller appends them one by one instead.
    """
    args = [(stream, expected, *_columns(events), False) for stream, expected, events in appends]
    async with pool.acquire() as conn, conn.transaction():
        try:
            await conn.executemany(_APPEND, args)
        except asyncpg.PostgresError as exc:
            _raise_refusal(exc, "(batch)", None)
            raise
        for sql, rows in also:
            await conn.executemany(sql, rows)
        recorded_at = await conn.fetchval("SELECT now()")
    sender = _sender(pool)
    for stream, expected, events in appends:
        sender.poke(stream, None if expected is None else expected + len(events))
    return recorded_at


# A notification needs no durability: an asynchronous commit keeps the notify lock for microseconds.
_ASYNC_COMMIT = "SET LOCAL synchronous_commit TO off"


PAYLOAD_BYTES = 7000      # a NOTIFY payload's bytes at most (PostgreSQL's limit is 8,000)


def _payloads(streams: dict[str, int | None]) -> list[str]:
    """The NOTIFY payloads naming ``streams``, each with the version it reached (``stream@version``, see
    ``notified_streams``): as many as they need, none over ``PAYLOAD_BYTES``; or [""] (any stream) when one is
    unnamed, unsafe to quote or to split. (One payload for any stream would have every follower of every
    table read: what a burst of appends larger than one payload did, under load, when the NOTIFYs lag.)"""
    items = [s if v is None else f"{s}@{v}" for s, v in sorted(streams.items())]
    sizes = [len(item.encode()) for item in items]
    if any(not s or "," in s or "'" in s or "@" in s for s in streams) or any(n > PAYLOAD_BYTES for n in sizes):
        return [""]
    out: list[str] = []
    part: list[str] = []
    size = 0
    for item, n in zip(items, sizes):
        n += 1                                   # its comma
        if part and size + n > PAYLOAD_BYTES:
            out.append(",".join(part))
            part, size = [], 0
        part.append(item)
        size += n
    out.append(",".join(part))                   # (no streams: one payload, "")
    return out


def notified_streams(payload: str) -> dict[str, int | None] | None:
    """What a NOTIFY payload names: stream -> the version it reached (None: not said), or None for any stream.

    The in-database NOTIFY names the stream alone; the pooled appends' add ``@version``."""
    if not payload:
        return None
    out: dict[str, int | None] = {}
    for item in payload.split(","):
        stream, at, version = item.rpartition("@")
        if at and version.isdigit():
            out[stream] = int(version)
        else:
            out[item] = None
    return out


class _NotifySender:
    """Sends NOTIFY after appends committed through a pool, from its own pooled connection.

    At most one NOTIFY per `interval`: appends arriving meanwhile are covered by one more right after
    it, so subscribers hear of every append within `interval` while a burst costs a few notifications,
    and no append transaction holds the notify lock.  A lost one only delays subscribers to their poll.
    Its payload names the streams appended to (comma-separated) with the version each reached, so that a
    follower already there (the process that appended, which folded its own events) reads nothing; or is
    empty (any stream) when they would not fit.
    """

    interval = 0.005

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.pending: dict[str, int | None] = {}
        self.task: asyncio.Task | None = None

    def poke(self, stream: str = "", version: int | None = None) -> None:
        before = self.pending.get(stream, 0)
        self.pending[stream] = None if before is None or version is None else max(before, version)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        try:
            while self.pending:
                streams, self.pending = self.pending, {}
                notify = (f"NOTIFY {CHANNEL}, '{p}'" for p in _payloads(streams))    # one transaction
                await self.pool.execute("; ".join([_ASYNC_COMMIT, *notify]))
                await asyncio.sleep(self.interval)
        except Exception as exc:  # the pool is closing, or the server went away
            log.debug("event store: NOTIFY not sent (%r); subscribers will poll", exc)


_senders: dict[int, _NotifySender] = {}  # by id(pool): asyncpg pools take no weak references


def _sender(pool: asyncpg.Pool) -> _NotifySender:
    sender = _senders.get(id(pool))
    if sender is None or sender.pool is not pool:
        for key in [k for k, n in _senders.items() if n.pool.is_closing()]:
            del _senders[key]
        sender = _senders[id(pool)] = _NotifySender(pool)
    return sender


async def notifications_sent(pool: asyncpg.Pool) -> None:
    """Wait until the NOTIFYs owed for appends through ``pool`` are sent.

    A NOTIFY runs in a short transaction of its own, which holds back read_all's horizon while it runs;
    a reader that must see its own appends at once waits for this first.
    """
    sender = _senders.get(id(pool))
    if sender is not None and sender.task is not None:
        await asyncio.shield(sender.task)


def _in_transaction(db: Db) -> bool:
    return isinstance(db, asyncpg.Connection) and db.is_in_transaction()


async def _stored_as_exact_retry(db: Db, stream: str, expected: int | None, ids: list[uuid.UUID]) -> bool:
    rows = await db.fetch(
        "SELECT event_id, stream_id, version FROM events WHERE event_id = ANY($1::uuid[])", ids)
    stored = {r[0]: (r[1], r[2]) for r in rows}
    if len(stored) != len(ids):
        return False
    first = stored[ids[0]][1]
    return (all(stored[i] == (stream, first + k) for k, i in enumerate(ids))
            and (expected is None or expected == first - 1))


async def stream_version(db: Db, stream: str) -> int:
    """The version of the stream's last event (0 when it has none)."""
    return await db.fetchval(
        "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1", stream)


async def head_hash(db: Db, stream: str, version: int | None = None) -> bytes | None:
    """The chain hash of `stream` at `version` (default: its last event), or None when there is no such event."""
    if version is None:
        return await db.fetchval(
            "SELECT hash FROM events WHERE stream_id = $1 ORDER BY version DESC LIMIT 1", stream)
    return await db.fetchval("SELECT hash FROM events WHERE stream_id = $1 AND version = $2", stream, version)


async def read_stream(db: Db, stream: str, from_version: int = 1, limit: int | None = None) -> list[RecordedEvent]:
    """The events of `stream` from `from_version` (inclusive), in version order."""
    return await db.fetch(_READ_STREAM, stream, from_version, limit, record_class=RecordedEvent)


async def read_all(db: Db, after: Checkpoint = START, limit: int = 1000) -> list[RecordedEvent]:
    """Up to `limit` events after `after` in global order, none of which can be preceded by a later commit.

    Run it outside any transaction that has written: a writer's own id would hold its horizon back.
    Through a pool it first waits for the pool's own pending NOTIFY (whose short transaction would hold
    the horizon back too), so a process reads its own appends at once.
    """
    if isinstance(db, asyncpg.Pool):
        await notifications_sent(db)
    return await db.fetch(_READ_ALL, after[0], after[1], limit, record_class=RecordedEvent)


async def read_streams(conn: asyncpg.Connection, prefix: str, after: Checkpoint = START, limit: int = 1000,
                       event_types: tuple[str, ...] | None = None) -> tuple[list[RecordedEvent], Checkpoint]:
    """Up to `limit` events of the streams whose id starts with `prefix` (and, given `event_types`, of those
    types only) after `after`, in global order (the others filtered out in SQL), and the checkpoint a reader
    of those streams may move to: the last one
    returned when there may be more, else the last event visible in the same snapshot, so that a reader
    skips the other streams' events once and for all.

    Run on a connection outside any transaction (it opens a read-only repeatable-read one: both reads see
    one snapshot).
    """
    async with conn.transaction(isolation="repeatable_read", readonly=True):
        types = None if event_types is None else tuple(event_types)
        rows = await conn.fetch(_read_streams_sql(prefix, types), after[0], after[1], limit, prefix,
                                None if types is None else list(types), record_class=RecordedEvent)
        if len(rows) == limit:
            return rows, rows[-1].checkpoint
        end = await conn.fetchrow(_HORIZON, after[0], after[1])
    return rows, (Checkpoint(end[0], end[1]) if end is not None else after)


async def has_pending(db: Db, after: Checkpoint) -> bool:
    """Whether committed events exist after `after` that read_all does not return yet (horizon held back)."""
    return await db.fetchval(_PENDING, after[0], after[1]) is not None


async def verify_stream(db: Db, stream: str) -> int | None:
    """The first version of `stream` whose hash-chain link is broken, or None when the chain holds."""
    return await db.fetchval("SELECT verify_stream($1)", stream)
