"""What a seat (or a spectator) sees of a Balut game: the only thing clients and bots receive.

Balut hides no hand: every sheet, every throw and every row written is public. What is hidden is the future:
a turn's faces are drawn from a seed committed before the turn, so the view carries the dice thrown, the
commitment, and the seed only once it is revealed, never the faces of throws still to come.
"""

from __future__ import annotations

import msgspec

from domain.balut.events import BalutResult
from domain.balut.game import BalutState, legal_actions, next_turn
from domain.balut.profiles import BalutProfile
from domain.balut.scoring import CATEGORIES, category_score, open_categories, sheet_total


class SheetView(msgspec.Struct, frozen=True):
    seat: int
    rows: dict[str, list[int]]            # row name -> the scores written, in order
    total: int
    open: list[str]                       # rows that still take a score


class BalutView(msgspec.Struct, frozen=True, kw_only=True):
    viewer: int | None                    # the seat, or None for a spectator
    phase: str
    profile: BalutProfile
    players: int
    round: int
    order: list[int]                      # this round's throwing order
    turn: int | None                      # the seat throwing now
    next_seat: int | None                 # who throws next when no turn is running
    throws: int                           # throws made this turn (0-3)
    dice: list[int]                       # the five dice after the last throw
    sheets: list[SheetView]
    commitment: str | None                # of the current (or last) turn's seed
    seed: str | None                      # that seed, once revealed
    legal_actions: list
    result: BalutResult | None
    would_score: dict[str, int] = {}      # the thrower's open rows, each with what the dice would score there


def sheet_view(s: BalutState, seat: int) -> SheetView:
    sheet = s.sheets[seat]
    return SheetView(seat, {c: list(row) for c, row in zip(CATEGORIES, sheet)}, sheet_total(sheet),
                     list(open_categories(sheet, s.profile)))


def view(s: BalutState, seat: int | None) -> BalutView:
    """The game as ``seat`` sees it; ``seat=None`` is a spectator (who sees the same, with no actions)."""
    waiting = s.phase == "playing" and s.stage != "rolling"
    return BalutView(
        viewer=seat,
        phase=s.phase,
        profile=s.profile,
        players=s.players,
        round=s.round,
        order=list(s.order),
        turn=s.turn if s.turn >= 0 else None,
        next_seat=next_turn(s)[0] if waiting else None,
        throws=s.throws,
        dice=list(s.dice),
        sheets=[sheet_view(s, i) for i in range(s.players)],
        commitment=s.commitment,
        seed=s.seed,
        legal_actions=[] if seat is None else legal_actions(s, seat),
        result=s.result,
        would_score={c: category_score(c, s.dice, s.profile) for c in open_categories(s.sheets[s.turn], s.profile)}
        if s.turn >= 0 and s.throws else {},
    )
