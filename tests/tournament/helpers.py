"""Given/when/then for the tournament decider, and small championship builders."""

from __future__ import annotations

import pytest

from domain.tournament import (
    ChampionshipCreated, CloseRegistration, CommitDraw, CreateChampionship, MakeDraw, RegisterTeam,
    Settings, ChampionshipRuleError, commitment, decide, fold,
)
from domain.tournament.state import ChampionshipState


def given(*events) -> ChampionshipState:
    return fold(events)


def when(state: ChampionshipState, command) -> list:
    return decide(state, command)


def then_error(state: ChampionshipState, command, text: str, rule: str) -> None:
    """The command is refused with exactly this text and this stable rule id."""
    with pytest.raises(ChampionshipRuleError) as error:
        decide(state, command)
    assert (str(error.value), error.value.rule) == (text, rule)


def run(state: ChampionshipState, *commands) -> ChampionshipState:
    """Decide and evolve each command in turn."""
    for command in commands:
        state = fold(decide(state, command), state)
    return state


def created(format_: str = "single_elimination", **settings) -> ChampionshipState:
    return given(ChampionshipCreated("cup", Settings("Cup", format_, **settings)))


def drawn(teams: int, format_: str = "single_elimination", seed: str = "s", **settings) -> ChampionshipState:
    state = run(created(format_, **settings),
                *(RegisterTeam(f"T{i}", (f"P{i}a", f"P{i}b"), (f"P{i}s",)) for i in range(1, teams + 1)))
    return run(state, CloseRegistration(), CommitDraw(commitment(seed)), MakeDraw(seed=seed))


__all__ = ["CreateChampionship", "given", "when", "then_error", "run", "created", "drawn"]
