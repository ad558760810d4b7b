"""The fair-play queue, a projection (``fairplay_rm``) over the tables' streams: it keeps the seats and
championship of each table whose game has a fair-play analysis (the seam's ``fair_play``: the card game's)
(``table_opened``), counts its deals (``deal_started``), and queues each deal once it
has ended and its seed is revealed (``seed_revealed``: from then on its cards are anyone's to derive). It
reads only those three kinds of event (filtered in SQL) and does nothing costly: the analysis is the
analyser's (``services/fairplay/analyser``), woken by ``CHANNEL``."""

from __future__ import annotations

import asyncpg

from domain.baloot.events import DealStarted, SeedRevealed
from domain.games import GAMES
from domain.table import TableOpened
from services.eventstore import RecordedEvent, projection
from services.tables import CODEC

NAME = "fairplay_rm"
CHANNEL = "baloot_fairplay"
PREFIX = "table-"
EVENT_TYPES = ("table_opened", "deal_started", "seed_revealed")


async def apply_fairplay_batch(conn: asyncpg.Connection, events: list[RecordedEvent]) -> None:
    queued = False
    for recorded in events:
        table_id = recorded.stream_id[len(PREFIX):]
        event = CODEC.decode(recorded)
        if isinstance(event, TableOpened):
            game = GAMES.get(event.game)           # a game no longer registered: nothing to analyse
            if game is not None and game.info.fair_play is not None:
                await conn.execute(
                    "INSERT INTO fairplay_tables (table_id, game, championship_id, seats, bots, shared) "
                    "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (table_id) DO NOTHING",
                    table_id, event.game, event.championship_id, list(event.seats), [b or "" for b in event.bots],
                    event.boards is not None)
        elif isinstance(event, DealStarted):
            await conn.execute("UPDATE fairplay_tables SET deals = deals + 1 WHERE table_id = $1", table_id)
        elif isinstance(event, SeedRevealed):
            status = await conn.execute(
                "INSERT INTO fairplay_deals (table_id, deal_no, game, version, championship_id, seats, shared, "
                "requested_at) SELECT t.table_id, coalesce($2, t.deals), t.game, $3, t.championship_id, t.seats, "
                "t.shared, r.requested_at FROM fairplay_tables t LEFT JOIN review_requests r ON r.table_id = "
                "t.table_id AND r.deal_no = coalesce($2, t.deals) WHERE t.table_id = $1 AND coalesce($2, t.deals) >= 1 "
                "ON CONFLICT (table_id, deal_no) DO NOTHING",
                table_id, event.deal_no, recorded.version)
            queued |= status != "INSERT 0 0"
    if queued:
        await conn.execute("SELECT pg_notify($1, '')", CHANNEL)


async def apply_fairplay(conn: asyncpg.Connection, event: RecordedEvent) -> None:
    await apply_fairplay_batch(conn, [event])


async def reset_fairplay(conn: asyncpg.Connection) -> None:
    """A rebuild from zero: every deal is queued and analysed again (the same events and seed, the same
    decisions)."""
    await conn.execute("TRUNCATE fairplay_tables, fairplay_deals, fairplay_seats, review_seats")


def fairplay_read_model():
    return projection(NAME, apply_fairplay, reset_fairplay, stream_prefix=PREFIX, event_types=EVENT_TYPES,
                      apply_batch=apply_fairplay_batch)
