"""Groups → knock-out: each group plays its own bracket down to a fixed number of qualifiers,
who enter a final bracket (the format of big Saudi championships, e.g. 10,240 teams in 2018).

Groups are dealt from the draw like cards in a snake (A B C C B A …) so strong seeds spread out.
In the final bracket, group winners take the top seeds, then second qualifiers, and so on.
"""

from __future__ import annotations

from domain.tournament.bracket import first_round_slots, pair_slots, winners
from domain.tournament.errors import ChampionshipRuleError
from domain.tournament.events import Match, PairingInputs, RankEntry, Settings
from domain.tournament.ranking import elimination_ranking
from domain.tournament.single_elimination import round_label
from domain.tournament.state import ChampionshipState

FINAL = "final bracket"


def group_count(teams: int, group_size: int) -> int:
    """Fewest groups of at most `group_size` teams."""
    return max(1, -(-teams // group_size))


def deal_groups(order: list[str], groups: int) -> list[list[str]]:
    """Snake distribution of the seeded field into groups."""
    dealt: list[list[str]] = [[] for _ in range(groups)]
    for i, team in enumerate(order):
        lap, pos = divmod(i, groups)
        dealt[pos if lap % 2 == 0 else groups - 1 - pos].append(team)
    return dealt


def group_stage(g: int) -> str:
    return f"group {g + 1}"


def check_settings(settings: Settings) -> None:
    q = settings.qualifiers_per_group
    if q < 1 or q & (q - 1):
        raise ChampionshipRuleError("groups_settings", f"qualifiers per group must be a power of two, not {q}")
    if settings.group_size < 2:
        raise ChampionshipRuleError("groups_settings", "a group needs room for at least two teams")


def _group_slots(state: ChampionshipState) -> list[tuple[str | None, ...]]:
    """Each group's slots after the last group-phase round."""
    last = state.rounds[-1]
    slots = list(last.inputs.lists)
    by_group: dict[str, list[Match]] = {}
    for m in last.matches:
        by_group.setdefault(m.stage, []).append(m)
    for g in range(len(slots)):
        played = by_group.get(group_stage(g))
        if played:
            slots[g] = tuple(winners(last, played))
    return slots


def next_round(state: ChampionshipState) -> tuple[list[Match], PairingInputs] | None:
    number = len(state.rounds) + 1
    q = state.settings.qualifiers_per_group
    if not state.rounds:
        order = list(state.draw.order)
        groups = deal_groups(order, group_count(len(order), state.settings.group_size))
        group_slots = [tuple(first_round_slots(g)) for g in groups]
        first = True
    elif state.rounds[-1].inputs.phase == "groups":
        group_slots = _group_slots(state)
        first = False
    else:
        last = state.rounds[-1]
        slots = winners(last, last.matches)
        if len(slots) <= 1:
            return None
        return (pair_slots(slots, number, FINAL, 0, first_round=False),
                PairingInputs("winners of matches 2j and 2j+1 meet in match j", (tuple(slots),),
                              phase="final"))
    if any(len(s) > q for s in group_slots):
        matches: list[Match] = []
        for g, slots in enumerate(group_slots):
            if len(slots) > q:
                matches += pair_slots(list(slots), number, group_stage(g), len(matches),
                                      first_round=first)
        return matches, PairingInputs("group brackets: winners of 2j and 2j+1 meet in match j",
                                      tuple(group_slots), phase="groups")
    qualifiers = [s[i] for i in range(q) for s in group_slots if i < len(s) and s[i] is not None]
    slots = first_round_slots(qualifiers)
    if len(slots) <= 1:
        return None
    return (pair_slots(slots, number, FINAL, 0, first_round=True),
            PairingInputs("final bracket seeded by qualifying place, then group order",
                          (tuple(qualifiers),), phase="final"))


def champion(state: ChampionshipState) -> str | None:
    if not state.rounds:
        return state.draw.order[0] if state.draw and state.draw.order else None
    last = state.rounds[-1]
    if last.inputs.phase == "groups":   # a single qualifier overall
        qualifiers = [t for s in _group_slots(state) for t in s if t is not None]
        return qualifiers[0] if len(qualifiers) == 1 else None
    return last.outcomes[0].winner


def ranking(state: ChampionshipState) -> tuple[str | None, tuple[RankEntry, ...]]:
    winner = champion(state)
    final_rounds = [r.number for r in state.rounds if r.inputs.phase == "final"]
    final_label = round_label(len(state.rounds))

    def label(rnd: int, stage: str) -> str:
        return final_label(rnd, stage) if rnd in final_rounds else f"{stage}, round {rnd}"
    return winner, elimination_ranking(state, winner, label=label)
