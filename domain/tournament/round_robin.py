"""Round robin (دوري): everyone meets everyone once, scheduled by the circle method.

The first team of the draw stays put while the others turn one place per round; an odd field adds an
empty seat, whose partner rests that round (a bye worth nothing).
"""

from __future__ import annotations

from domain.tournament.events import Match, PairingInputs, RankEntry
from domain.tournament.state import ChampionshipState, match_id
from domain.tournament.tiebreaks import TeamRecord, credit, order

STAGE = "round robin"


def planned_rounds(teams: int) -> int:
    return teams - 1 if teams % 2 == 0 else teams if teams > 1 else 0


def circle_round(order_: list[str | None], k: int) -> list[tuple[str | None, str | None]]:
    """Pairs of round k (0-based): seat 0 fixed, the rest rotated k places.

    >>> circle_round(["A", "B", "C", "D"], 0)
    [('A', 'D'), ('B', 'C')]
    """
    n = len(order_)
    rest = order_[1:]
    k %= n - 1
    turned = [order_[0]] + rest[n - 1 - k:] + rest[:n - 1 - k]
    return [(turned[i], turned[n - 1 - i]) for i in range(n // 2)]


def next_round(state: ChampionshipState) -> tuple[list[Match], PairingInputs] | None:
    number = len(state.rounds) + 1
    circle: list[str | None] = list(state.draw.order)
    if len(circle) % 2:
        circle.append(None)
    if number > state.draw.planned_rounds:
        return None
    matches = []
    for i, (a, b) in enumerate(circle_round(circle, number - 1)):
        if a is None:
            a, b = b, a
        matches.append(Match(match_id(number, i), number, i, STAGE, a, b, "" if b is not None else "bye"))
    return matches, PairingInputs(f"circle method, rotation {number - 1}", (tuple(circle),))


def ranking(state: ChampionshipState) -> tuple[str | None, tuple[RankEntry, ...]]:
    records: dict[str, TeamRecord] = {t: TeamRecord(t) for t in state.draw.order}
    for round_ in state.rounds:
        for m, outcome in zip(round_.matches, round_.outcomes):
            if outcome is not None:
                for r in credit(records.__getitem__, m, outcome):
                    records[r.team_id] = r
    ranked = order(records, list(state.draw.order), swiss=False)
    entries = tuple(RankEntry(i, t, f"{records[t].wins} wins") for i, t in enumerate(ranked, 1))
    return (ranked[0] if ranked else None), entries
