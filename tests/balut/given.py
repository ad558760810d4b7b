"""Given/when/then helpers for the Balut decider: dice in notation, turns with explicit faces.

    state = given_game(players=2)
    state = turn(state, "44124", category="fours")                 # one throw, then the row
    state = turn(state, "31562/44123/61655", [0, 2], category="choice")   # keep dice 0 and 2, throw again
    then_refused(state, Score(1, "fours"), "row_full", "seat 1's fours row is full: ...")
"""

from __future__ import annotations

import pytest

from domain.balut.dice import parse_faces
from domain.balut.events import Roll, Score, StartBalut, StartTurn
from domain.balut.game import INITIAL, BalutState, step
from domain.balut.profiles import STC, BalutProfile
from domain.balut.scoring import CATEGORY_INDEX
from domain.errors import DomainError


def faces(text: str) -> tuple[int, ...]:
    """``"44124"`` (the same dice for all three throws) or ``"31562/44123/61655"``."""
    return parse_faces(text if "/" in text else f"{text}/{text}/{text}")


def given_game(players: int = 1, profile: BalutProfile = STC, first_player: int = 0) -> BalutState:
    state, _ = step(INITIAL, StartBalut(players=players, first_player=first_player, profile=profile))
    return state


def when(state: BalutState, *commands) -> BalutState:
    for cmd in commands:
        state, _ = step(state, cmd)
    return state


def turn(state: BalutState, text: str, *keeps: list[int], category: str) -> BalutState:
    """The next turn from explicit faces: a first throw, one more throw per ``keeps``, then ``category``."""
    state = when(state, StartTurn(faces=faces(text)))
    seat = state.turn
    state = when(state, Roll(seat), *(Roll(seat, tuple(k)) for k in keeps))
    return when(state, Score(seat, category))


def then_refused(state: BalutState, command, rule: str, message: str | None = None) -> None:
    with pytest.raises(DomainError) as info:
        step(state, command)
    assert info.value.rule == rule
    if message is not None:
        assert info.value.message == message


def row(state: BalutState, seat: int, category: str) -> tuple[int, ...]:
    return state.sheets[seat][CATEGORY_INDEX[category]]
