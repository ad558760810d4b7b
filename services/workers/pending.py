"""What a table is waiting for, derived from its events alone (no queue state)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

import msgspec

from domain.bots import lowest_legal_card
from domain.events import AbandonGame, Bid, Double, ForfeitGame
from domain.views import view
from services.api.tables import SeatHandedToBot, Table


class Work(msgspec.Struct, frozen=True):
    kind: Literal["bot", "clock", "review"]
    table_id: str
    version: int
    seat: int | None = None
    due: dt.datetime | None = None      # clocks and reviews: when it becomes due


def pending_work(table: Table) -> Work | None:
    """The next piece of background work the table needs, if any."""
    opened = table.opened
    game = table.game
    if opened is None or game.phase != "playing":
        return None
    deal = game.deal
    tid = opened.table_id
    if deal.phase == "review":
        due = table.last_at + dt.timedelta(seconds=opened.review_seconds) if table.last_at else None
        return Work("review", tid, table.version, None, due)
    seat = deal.turn
    if seat < 0:
        return None
    if table.bots[seat] is not None:
        return Work("bot", tid, table.version, seat)
    if opened.turn_seconds is not None and table.last_at is not None:
        return Work("clock", tid, table.version, seat, table.last_at + dt.timedelta(seconds=opened.turn_seconds))
    return None


def timeout_action(table: Table, seat: int):
    """What a seat does when its clock runs out and the table auto-plays: pass, or the lowest legal card."""
    v = view(table.game.deal, seat)
    actions = v.legal_actions
    for a in actions:
        if type(a) is Bid and a.bid in ("pass", "wala", "confirm"):
            return a
        if type(a) is Double and a.call == "pass":
            return a
    return lowest_legal_card(v) or actions[0]


def timeout_command(table: Table, seat: int, bot_level: str):
    """What the table does when ``seat``'s clock runs out: its ``on_timeout`` rule, and once ``max_timeouts``
    turns in a row have run out with no player acting, the end of the game (the teams of the seats that
    timed out lose it; both teams: nobody wins)."""
    opened = table.opened
    run = table.timeouts + (seat,)
    if opened.on_timeout == "forfeit":
        return ForfeitGame(team=seat & 1, reason=f"seat {seat}'s turn clock ran out")
    if len(run) >= opened.max_timeouts:
        teams = tuple(sorted({s & 1 for s in run}))
        return AbandonGame(teams=teams, reason=f"{len(run)} turns in a row ran out with no player acting")
    if opened.on_timeout == "bot":
        return [SeatHandedToBot(seat=seat, level=bot_level, reason="the turn clock ran out")]
    return timeout_action(table, seat)
