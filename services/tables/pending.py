"""What a table is waiting for, derived from its events alone (no queue state)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

import msgspec

from domain.table import awaiting_referee, game_of
from services.tables import Table


class Work(msgspec.Struct, frozen=True):
    kind: Literal["bot", "clock", "review"]
    table_id: str
    version: int
    seat: int | None = None
    due: dt.datetime | None = None      # clocks, reviews and a paced table's bots: when it becomes due


def pending_work(table: Table) -> Work | None:
    """The next piece of background work the table needs, if any."""
    opened = table.opened
    if opened is None or table.game.phase != "playing":
        return None
    game = game_of(table)                   # who is to act is the game's to say (domain/games.py)
    tid = opened.table_id
    if game.in_review(table.game):
        if awaiting_referee(table) is not None:
            return None                     # the deal's result waits for the referee, not for a clock
        due = table.last_at + dt.timedelta(seconds=opened.review_seconds) if table.last_at else None
        return Work("review", tid, table.version, None, due)
    seat = game.to_act(table.game)
    if seat is None:
        return None
    if table.bots[seat] is not None:
        # A paced table's bot acts its pace after the last stored event; an unpaced one at once (no due).
        due = None
        if opened.bot_pace > 0 and table.last_at is not None:
            due = table.last_at + dt.timedelta(seconds=opened.bot_pace)
        return Work("bot", tid, table.version, seat, due)
    if opened.turn_seconds is not None and table.last_at is not None:
        return Work("clock", tid, table.version, seat, table.last_at + dt.timedelta(seconds=opened.turn_seconds))
    return None
