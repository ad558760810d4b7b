"""Single elimination (خروج المغلوب): seeded draw, byes to the best seeds in round 1 only."""

from __future__ import annotations

from domain.tournament.bracket import first_round_slots, pair_slots, winners
from domain.tournament.events import Match, PairingInputs, RankEntry
from domain.tournament.ranking import elimination_ranking
from domain.tournament.state import ChampionshipState

STAGE = "main"


def next_round(state: ChampionshipState) -> tuple[list[Match], PairingInputs] | None:
    """The next round's matches from the draw or the last round's winners; None once decided."""
    number = len(state.rounds) + 1
    if not state.rounds:
        slots = first_round_slots(list(state.draw.order))
        method = "seeded bracket: seed s meets seed size-1-s, byes to the best seeds"
    else:
        last = state.rounds[-1]
        slots = winners(last, last.matches)
        method = "winners of matches 2j and 2j+1 meet in match j"
    if len(slots) <= 1:
        return None
    matches = pair_slots(slots, number, STAGE, 0, first_round=number == 1)
    return matches, PairingInputs(method, (tuple(slots),))


def champion(state: ChampionshipState) -> str | None:
    if not state.rounds:
        return state.draw.order[0] if state.draw and state.draw.order else None
    final = state.rounds[-1]
    return final.outcomes[0].winner


def round_label(total: int):
    names = {0: "final", 1: "semi-final", 2: "quarter-final"}

    def label(rnd: int, stage: str) -> str:
        return names.get(total - rnd, f"round {rnd}")
    return label


def ranking(state: ChampionshipState) -> tuple[str | None, tuple[RankEntry, ...]]:
    winner = champion(state)
    return winner, elimination_ranking(state, winner, label=round_label(len(state.rounds)))
