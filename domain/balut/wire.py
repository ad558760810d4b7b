"""The dice game's side of the HTTP API (``domain.seam.Wire``): the two actions its players send (throw, keeping
some dice; write a row) and its view as the API sends it (the legal actions in the form a client sends them
back)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.balut.events import Roll, Score
from domain.balut.views import BalutView
from domain.seam import Wire


class RollAction(msgspec.Struct, tag="roll", forbid_unknown_fields=True, omit_defaults=True):
    """The dice game: throw the dice not kept (positions 0-4 set aside; the first throw keeps none)."""

    keep: Annotated[list[Annotated[int, msgspec.Meta(ge=0, le=4)]], msgspec.Meta(max_length=5)] = []


class ScoreAction(msgspec.Struct, tag="score", forbid_unknown_fields=True, omit_defaults=True):
    """The dice game: write the dice in a row of the sheet, ending the turn."""

    category: Literal["fours", "fives", "sixes", "straight", "house", "choice", "balut"]


def to_command(action, seat: int):
    if type(action) is RollAction:
        return Roll(seat, tuple(action.keep))
    if type(action) is ScoreAction:
        return Score(seat, action.category)
    raise TypeError(f"not a dice-game action: {action!r}")


def to_wire(command):
    if type(command) is Roll:
        return RollAction(list(command.keep))
    if type(command) is Score:
        return ScoreAction(command.category)
    raise TypeError(f"not a player action: {command!r}")


def view_fields(action) -> list:
    return [("legal_actions", list[action])]


def on_wire(state, view):
    return msgspec.structs.replace(view, legal_actions=[to_wire(c) for c in view.legal_actions])


WIRE = Wire(
    actions=(RollAction, ScoreAction),
    view=BalutView, to_command=to_command, to_wire=to_wire, view_fields=view_fields, on_wire=on_wire,
    table_view="BalutTableView",
    table_doc="A dice-game table as one caller sees it: the game's view (every sheet and throw; the dice of "
              "throws to come never), the legal actions in wire form, and the table around it.",
)
