"""Dispatch to the championship's format: each format is a pure function of the tournament's state."""

from __future__ import annotations

from types import ModuleType

from domain.tournament import double_elimination, duplicate, groups, round_robin, single_elimination, swiss
from domain.tournament.events import Match, PairingInputs, RankEntry
from domain.tournament.state import ChampionshipState

FORMAT_MODULES: dict[str, ModuleType] = {
    "single_elimination": single_elimination,
    "groups_knockout": groups,
    "double_elimination": double_elimination,
    "swiss": swiss,
    "round_robin": round_robin,
    "duplicate": duplicate,
}


def next_round(state: ChampionshipState) -> tuple[list[Match], PairingInputs] | None:
    """The pairing of the next round and its inputs, or None when the championship is decided."""
    return FORMAT_MODULES[state.settings.format].next_round(state)


def waiting_round(state: ChampionshipState) -> tuple[int, list[Match]] | None:
    """The next round's number and pairings while they are known and it has not started: round 1's once the
    draw is made, a later one's once the last is decided; None otherwise (or when the championship is)."""
    if state.status != "drawn" and not (state.status == "running" and not state.rounds[-1].undecided):
        return None
    pairing = next_round(state)
    return None if pairing is None else (len(state.rounds) + 1, pairing[0])


def final_ranking(state: ChampionshipState) -> tuple[str | None, tuple[RankEntry, ...]]:
    """The champion (None if nobody is left) and the final ranking."""
    return FORMAT_MODULES[state.settings.format].ranking(state)


def planned_rounds(format_: str, teams: int, swiss_rounds: int) -> int:
    """Rounds fixed at the draw (Swiss and round robin); 0 for brackets, which end by themselves."""
    if format_ in ("swiss", "duplicate"):
        return swiss_rounds or swiss.planned_rounds(teams)
    if format_ == "round_robin":
        return round_robin.planned_rounds(teams)
    return 0
