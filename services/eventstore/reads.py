"""The log's reads beyond a stream or the log in order: heads, which streams hold which kinds of events, counts.

Every question the application layer, the workers and the tools ask of the ``events`` table is asked here, so
its SQL (and the indexes it relies on) has one place, and an event's payload is read through a ``Codec``
(its upcasters applied), never as JSON fields picked out in SQL. The event types a read is about are written
into its statement as constants, not passed: the log's partial indexes (``migrations/0003``, ``0014``,
``0018``) name their kinds, and a prepared statement's generic plan, made without the parameters' values,
cannot use a partial index.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from services.eventstore.store import _COLUMNS, Checkpoint, Db, RecordedEvent

_KIND = re.compile(r"^[a-z][a-z0-9_]*$")


def _kinds(event_types: Iterable[str]) -> str:
    """``event_types`` as a SQL list of constants (each a plain name: nothing else is written into SQL)."""
    kinds = sorted(set(event_types))
    if not kinds or not all(_KIND.match(k) for k in kinds):
        raise ValueError(f"event types must be plain lower-case names, at least one: {kinds!r}")
    return "(" + ", ".join(f"'{k}'" for k in kinds) + ")"


class Head(NamedTuple):
    """A stream's last stored event."""

    version: int
    event_type: str
    recorded_at: dt.datetime


async def head_position(db: Db) -> int:
    """The log's last position (0: an empty log)."""
    return await db.fetchval("SELECT coalesce(max(position), 0) FROM events")


async def count(db: Db) -> int:
    """How many events the log holds."""
    return await db.fetchval("SELECT count(*) FROM events")


async def count_after(db: Db, after: Checkpoint) -> int:
    """How many events lie after ``after`` in the log's order (how far a reader at it is behind)."""
    return await db.fetchval("SELECT count(*) FROM events WHERE (tx_id, position) > ($1::xid8, $2::bigint)",
                             after.tx_id, after.position)


async def stream_position(db: Db, stream: str) -> int | None:
    """The log position of ``stream``'s last event (None: no such stream)."""
    return await db.fetchval("SELECT max(position) FROM events WHERE stream_id = $1", stream)


async def stream_heads(db: Db) -> dict[str, int]:
    """Every stream's version."""
    return {r[0]: r[1] for r in await db.fetch("SELECT stream_id, max(version) FROM events GROUP BY stream_id")}


async def version_recorded_by(db: Db, stream: str, seconds_ago: float) -> int:
    """``stream``'s version as it stood ``seconds_ago`` seconds ago by the database's clock (0: none yet)."""
    return await db.fetchval(
        "SELECT coalesce(max(version), 0) FROM events WHERE stream_id = $1 "
        "AND recorded_at <= now() - make_interval(secs => $2)", stream, float(seconds_ago))


async def last_events(db: Db, streams: Sequence[str], *, quiet_seconds: float | None = None) -> dict[str, Head]:
    """Each of ``streams``' last event (streams with none are left out), one index scan a stream; with
    ``quiet_seconds``, only the streams nothing was stored at for that long by the database's clock."""
    if not streams:
        return {}
    rows = await db.fetch(
        "SELECT s.stream_id, e.version, e.event_type, e.recorded_at FROM unnest($1::text[]) AS s(stream_id) "
        "CROSS JOIN LATERAL (SELECT version, event_type, recorded_at FROM events WHERE stream_id = s.stream_id "
        "ORDER BY version DESC LIMIT 1) e "
        "WHERE $2::float8 IS NULL OR e.recorded_at <= now() - make_interval(secs => $2::float8)",
        list(streams), None if quiet_seconds is None else float(quiet_seconds))
    return {r[0]: Head(r[1], r[2], r[3]) for r in rows}


async def first_recorded(db: Db, streams: Sequence[str]) -> dict[str, dt.datetime]:
    """When each of ``streams`` began (its first event's time; streams with none are left out)."""
    if not streams:
        return {}
    rows = await db.fetch("SELECT stream_id, recorded_at FROM events WHERE stream_id = ANY($1::text[]) "
                          "AND version = 1", list(streams))
    return {r[0]: r[1] for r in rows}


@functools.lru_cache(maxsize=64)
def _holding_sql(kinds: str) -> str:
    return ("SELECT s.stream_id FROM unnest($1::text[]) AS s(stream_id) WHERE EXISTS (SELECT 1 FROM events e "
            f"WHERE e.stream_id = s.stream_id AND e.event_type IN {kinds})")


def holding_statement(event_types: Iterable[str]) -> str:
    """The statement ``streams_holding`` runs for ``event_types`` (its one parameter: the streams), for a look
    at its plan."""
    return _holding_sql(_kinds(event_types))


async def streams_holding(db: Db, streams: Sequence[str], event_types: Iterable[str]) -> set[str]:
    """Which of ``streams`` hold an event of one of ``event_types``."""
    if not streams:
        return set()
    return {r[0] for r in await db.fetch(holding_statement(event_types), list(streams))}


@functools.lru_cache(maxsize=64)
def _begun_sql(kind: str, lacking: str | None, prefix: str | None) -> str:
    sql = f"SELECT o.stream_id FROM events o WHERE o.event_type IN {kind}"
    if prefix is not None:
        sql += f" AND o.stream_id LIKE '{prefix}%'"
    if lacking is not None:
        sql += (" AND NOT EXISTS (SELECT 1 FROM events r WHERE r.stream_id = o.stream_id "
                f"AND r.event_type IN {lacking})")
    return sql


async def streams_begun_by(db: Db, event_type: str, *, lacking: Iterable[str] = (),
                           prefix: str | None = None) -> list[str]:
    """The streams holding an ``event_type`` event (a stream's first, for a kind that opens its streams), of
    those with none of ``lacking`` only, and, with ``prefix``, only the streams whose name starts with it."""
    return [r[0] for r in await db.fetch(begun_statement(event_type, lacking=lacking, prefix=prefix))]


def begun_statement(event_type: str, *, lacking: Iterable[str] = (), prefix: str | None = None) -> str:
    """The statement ``streams_begun_by`` runs (no parameters), for a look at its plan."""
    if prefix is not None and not _KIND.match(prefix.rstrip("-")):
        raise ValueError(f"a stream prefix must be a plain name: {prefix!r}")
    lacking = tuple(lacking)
    return _begun_sql(_kinds((event_type,)), _kinds(lacking) if lacking else None, prefix)


@functools.lru_cache(maxsize=64)
def _of_kinds_sql(kinds: str, some_streams: bool) -> str:
    streams = " AND stream_id = ANY($1::text[])" if some_streams else ""
    return f"SELECT {_COLUMNS} FROM events WHERE event_type IN {kinds}{streams} ORDER BY position"


async def read_kinds(db: Db, event_types: Iterable[str], streams: Sequence[str] | None = None) \
        -> list[RecordedEvent]:
    """Every event of ``event_types`` in the log's order (of ``streams`` only, if given): decode each with
    its codec (``Codec.decode``: upcast to the current schema)."""
    if streams is not None and not streams:
        return []
    args = (list(streams),) if streams is not None else ()
    return await db.fetch(kinds_statement(event_types, of_streams=streams is not None), *args,
                          record_class=RecordedEvent)


def kinds_statement(event_types: Iterable[str], *, of_streams: bool = False) -> str:
    """The statement ``read_kinds`` runs (``of_streams``: its one parameter, the streams), for a look at its
    plan."""
    return _of_kinds_sql(_kinds(event_types), of_streams)


async def commands_counted(db: Db, command_prefix: str) -> int:
    """How many commands whose id starts with ``command_prefix`` stored events (a command counted once per
    stream, however many events it stored)."""
    return await db.fetchval("SELECT count(DISTINCT (stream_id, metadata->>'command_id')) FROM events "
                             "WHERE starts_with(metadata->>'command_id', $1)", command_prefix)


async def duplicate_event_ids(db: Db) -> int:
    """How many stored events repeat another's id (0 in a sound log)."""
    return await db.fetchval("SELECT count(*) - count(DISTINCT event_id) FROM events")


class StreamAudit(NamedTuple):
    """One stream's soundness, as ``audit_streams`` reads it."""

    stream_id: str
    head: int
    gap: bool                         # its versions are not 1..head
    broken: int | None                # the version of its first broken hash link (None: the chain verifies)
    split: int                        # commands whose events are not one contiguous batch (stored twice)
    fields: list[list[Any]]           # (event type, the fields asked for...) of its events of the kinds asked for


_FIELD = re.compile(r"^[a-z][a-z0-9_]*$")


@functools.lru_cache(maxsize=16)
def _audit_sql(kinds: str, fields: tuple[str, ...]) -> str:
    picked = "".join(f", data->>'{f}'" for f in fields)
    return f"""
SELECT s, h.head, h.gap, verify_stream(s) AS broken,
       (SELECT count(*) FROM (SELECT 1 FROM events WHERE stream_id = s AND metadata ? 'command_id'
         GROUP BY metadata->>'actor', metadata->>'command_id' HAVING max(version) - min(version) + 1 <> count(*)) c
       ) AS split,
       (SELECT array_agg(ARRAY[event_type{picked}] ORDER BY version) FROM events
         WHERE stream_id = s AND event_type IN {kinds}) AS fields
  FROM unnest($1::text[]) s
 CROSS JOIN LATERAL (SELECT max(version) AS head, max(version) <> count(*) OR min(version) <> 1 AS gap
                       FROM events WHERE stream_id = s) h"""


async def audit_streams(db: Db, streams: Sequence[str], event_types: Iterable[str],
                        fields: Sequence[str]) -> list[StreamAudit]:
    """Each of ``streams``' soundness (head, gaps, hash chain, commands stored twice) and the text ``fields``
    of its ``event_types`` events in order, all in one row a stream: its events are read from the log once and
    found in the shared buffers by the other parts. Each stream by its own index scans (a ``stream_id =
    ANY(...)`` of 500 streams was planned as a scan of the whole log). The fields are read as stored (an
    audit looks at the bytes that were hashed, not at an upcast copy)."""
    if not all(_FIELD.match(f) for f in fields):
        raise ValueError(f"fields must be plain names: {fields!r}")
    rows = await db.fetch(_audit_sql(_kinds(event_types), tuple(fields)), list(streams))
    return [StreamAudit(r["s"], r["head"], r["gap"], r["broken"], r["split"], r["fields"] or []) for r in rows]


async def championships_created(db: Db, prefix: str, limit: int, organiser: str | None = None) \
        -> list[tuple[str, dt.datetime]]:
    """The championships (their organisers' grants) with when each was created (its stream's first event),
    the newest first, at most ``limit``; ``organiser``: only his. ``prefix``: the championships' stream
    prefix. One statement, so that the page's limit is the database's."""
    rows = await db.fetch(
        "SELECT g.scope_id, e.recorded_at FROM grants g JOIN events e ON e.stream_id = $2 || g.scope_id "
        "AND e.version = 1 WHERE g.scope = 'championship' AND g.role = 'organiser' "
        "AND ($3::text IS NULL OR g.user_id = $3) "
        "ORDER BY e.recorded_at DESC, g.scope_id LIMIT $1", limit, prefix, organiser)
    return [(r["scope_id"], r["recorded_at"]) for r in rows]
