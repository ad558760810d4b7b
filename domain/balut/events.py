"""Balut's commands (imperative) and events (past tense), frozen tagged msgspec Structs.

Tags are stable names stored in the log, prefixed ``balut_`` so they never meet the card game's. The seed
of a turn is revealed with the card game's own ``RevealSeed`` command: one command for one idea.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import msgspec

from domain.balut.profiles import STC, BalutProfile
from domain.events import Event

Category = Literal["fours", "fives", "sixes", "straight", "house", "choice", "balut"]

# ---------------------------------------------------------------- commands


class StartBalut(msgspec.Struct, frozen=True, tag="start_balut", kw_only=True):
    """A game for ``players`` seats (0 to players - 1); ``first_player`` won the flick of the die."""

    players: int
    first_player: int = 0
    profile: BalutProfile = STC


class StartTurn(msgspec.Struct, frozen=True, tag="start_turn", kw_only=True):
    """The next turn begins: its dice come from ``seed`` (commitment published) or explicit ``faces``."""

    seed: str | None = None
    faces: tuple[int, ...] | None = None


class Roll(msgspec.Struct, frozen=True, tag="roll_dice"):
    """Throw the dice not in ``keep`` (positions 0-4 set aside); the first throw keeps none."""

    seat: int
    keep: tuple[int, ...] = ()


class Score(msgspec.Struct, frozen=True, tag="score_category"):
    """Write the dice in a row of the sheet and end the turn (0 where they do not make it: a scratch)."""

    seat: int
    category: Category


# ---------------------------------------------------------------- values


class BalutResult(msgspec.Struct, frozen=True, kw_only=True):
    """Per seat: the sheet's total, the final points (the total at STC), the place (ties share it)."""

    totals: tuple[int, ...]
    points: tuple[int, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]


# ---------------------------------------------------------------- events


class BalutStarted(Event, frozen=True, tag="balut_started", kw_only=True):
    profile: BalutProfile
    players: int
    first_player: int


class TurnStarted(Event, frozen=True, tag="balut_turn_started", kw_only=True):
    """A turn begins. Thrown from a seed, it carries only the seed's commitment (the faces follow in the
    private ``balut_dice_drawn``); explicit faces (records, tests) are carried as they are."""

    seat: int
    round: int
    commitment: str | None = None
    faces: tuple[int, ...] | None = None


class DiceDrawn(Event, frozen=True, tag="balut_dice_drawn"):
    """The faces of a seeded turn, derived from its seed by the server: private, never stored."""

    private: ClassVar[bool] = True
    faces: tuple[int, ...]


class DiceRolled(Event, frozen=True, tag="balut_dice_rolled", kw_only=True):
    seat: int
    throw: int                                # 1, 2 or 3
    keep: tuple[int, ...]                     # positions set aside before the throw
    dice: tuple[int, ...]                     # all five after it


class CategoryScored(Event, frozen=True, tag="balut_category_scored", kw_only=True):
    seat: int
    category: Category
    dice: tuple[int, ...]
    points: int


class TurnSeedRevealed(Event, frozen=True, tag="balut_seed_revealed"):
    seed: str


class BalutEnded(Event, frozen=True, tag="balut_ended", kw_only=True):
    result: BalutResult
    reason: Literal["complete"] = "complete"


BalutCommand = StartBalut | StartTurn | Roll | Score
BalutEvent = BalutStarted | TurnStarted | DiceDrawn | DiceRolled | CategoryScored | TurnSeedRevealed | BalutEnded
# The events that are stored (``balut_dice_drawn`` is private: the server re-derives it from the seed).
EVENT_TYPES: tuple[type, ...] = (BalutStarted, TurnStarted, DiceRolled, CategoryScored, TurnSeedRevealed,
                                 BalutEnded)
