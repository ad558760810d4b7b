"""Reads of the log that the doors' pages need and no stream read gives: the championships with when each was
created (its stream's first event), and every stored event of some types across the tables, in the log's
order."""

from __future__ import annotations

import msgspec


async def championships_created(db, prefix: str, limit: int, organiser: str | None = None) -> list[tuple[str, object]]:
    """The championships (their organiser's grant) with when each was created, the newest first, at most
    ``limit``; ``organiser``: only his. ``prefix`` is the championships' stream prefix."""
    rows = await db.fetch(
        "SELECT g.scope_id, e.recorded_at FROM grants g JOIN events e ON e.stream_id = $2 || g.scope_id "
        "AND e.version = 1 WHERE g.scope = 'championship' AND g.role = 'organiser' "
        "AND ($3::text IS NULL OR g.user_id = $3) "
        "ORDER BY e.recorded_at DESC, g.scope_id LIMIT $1", limit, prefix, organiser)
    return [(r["scope_id"], r["recorded_at"]) for r in rows]


async def events_of_types(db, event_types) -> list[tuple[str, str, dict, object]]:
    """Every stored event of ``event_types``, in the log's order: (stream id, type, payload as a dict,
    recorded at)."""
    rows = await db.fetch(
        "SELECT stream_id, event_type, data, recorded_at FROM events WHERE event_type = ANY($1) ORDER BY position",
        list(event_types))
    return [(r["stream_id"], r["event_type"],
             msgspec.json.decode(r["data"].encode() if isinstance(r["data"], str) else r["data"]), r["recorded_at"])
            for r in rows]
