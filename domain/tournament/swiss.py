"""Swiss system: every round pairs teams on equal points, never twice the same pair if avoidable.

Pairing is a maximum-weight perfect matching (networkx, imported lazily here only: the rest of
`domain` stays standard library + msgspec). Costs, in strict priority: a rematch, then the square of
the points gap, then the distance in the ranking (Monrad-style neighbours). Large fields are matched in
blocks of 32 ranked teams (the blossom algorithm is cubic); a block that cannot avoid a rematch is merged
with the next, and fields of up to 128 teams fall back to one matching of the whole field, so there a
rematch means that none could be avoided.
The bye (odd fields) goes to the lowest-ranked team that has not had one and is worth one point.
"""

from __future__ import annotations

from domain.tournament.events import Match, PairingInputs, RankEntry
from domain.tournament.state import ChampionshipState, match_id, seed_order
from domain.tournament.tiebreaks import TeamRecord, credit, order

STAGE = "swiss"
BLOCK = 32
WHOLE_FIELD_LIMIT = 128


def planned_rounds(teams: int) -> int:
    """Default length: ceil(log2(teams)) rounds, enough to leave one unbeaten team."""
    return (teams - 1).bit_length() if teams > 1 else 0


def match_pairs(field: list[str], points: dict[str, int], met: set[frozenset[str]]
                ) -> list[tuple[str, str]]:
    """A perfect matching of the ranked `field` (even length) at least cost (see module doc)."""
    import networkx as nx  # lazily: the domain imports it for this one call

    n = len(field)
    if n == 0:
        return []
    gap = max(points[t] for t in field) - min(points[t] for t in field)
    rank_unit = 1
    score_unit = n * n + 1
    rematch_unit = (n // 2 + 1) * score_unit * (gap * gap + 1)
    top = rematch_unit + score_unit * (gap * gap + 1)
    graph = nx.Graph()
    for i in range(n):
        for j in range(i + 1, n):
            a, b = field[i], field[j]
            d = points[a] - points[b]
            cost = rematch_unit * (frozenset((a, b)) in met) + score_unit * d * d + rank_unit * (j - i)
            graph.add_edge(i, j, weight=top - cost)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return [(field[i], field[j]) for i, j in sorted((min(e), max(e)) for e in matching)]


def rematches(pairs: list[tuple[str, str]], met: set[frozenset[str]]) -> int:
    return sum(frozenset(p) in met for p in pairs)


def pair(ranked: list[str], points: dict[str, int], met: set[frozenset[str]], had_bye: set[str]
         ) -> tuple[list[tuple[str, str]], str | None]:
    """Pairs (higher-ranked team first) and the bye, for the ranked active field."""
    field = list(ranked)
    bye = None
    if len(field) % 2:
        bye = next((t for t in reversed(field) if t not in had_bye), field[-1])
        field.remove(bye)
    pairs: list[tuple[str, str]] = []
    i = 0
    while i < len(field):
        end = min(len(field), i + BLOCK)
        block_pairs = match_pairs(field[i:end], points, met)
        while rematches(block_pairs, met) and end < len(field) and end - i < WHOLE_FIELD_LIMIT:
            end = min(len(field), end + BLOCK)
            block_pairs = match_pairs(field[i:end], points, met)
        pairs += block_pairs
        i = end
    if rematches(pairs, met) and len(field) > BLOCK and len(field) <= WHOLE_FIELD_LIMIT:
        pairs = match_pairs(field, points, met)
    return pairs, bye


def history(state: ChampionshipState) -> tuple[dict[str, TeamRecord], set[frozenset[str]], set[str]]:
    """Records, pairs already met and teams that had a bye."""
    records: dict[str, TeamRecord] = {}

    def get(team: str) -> TeamRecord:
        return records.get(team) or TeamRecord(team)

    met: set[frozenset[str]] = set()
    had_bye: set[str] = set()
    for round_ in state.rounds:
        for m, outcome in zip(round_.matches, round_.outcomes):
            if m.team_a is not None and m.team_b is not None:
                met.add(frozenset((m.team_a, m.team_b)))
            elif m.team_a is not None:
                had_bye.add(m.team_a)
            if outcome is not None:
                for r in credit(get, m, outcome):
                    records[r.team_id] = r
    return records, met, had_bye


def next_round(state: ChampionshipState) -> tuple[list[Match], PairingInputs] | None:
    number = len(state.rounds) + 1
    if number > state.draw.planned_rounds:
        return None
    records, met, had_bye = history(state)
    seeds = seed_order(state)
    active = [t for t in seeds if not state.teams[t].withdrawn]
    if len(active) < 2:
        return None
    points = {t: records[t].points if t in records else 0 for t in active}
    position = {t: i for i, t in enumerate(seeds)}
    ranked = sorted(active, key=lambda t: (-points[t], position[t]))
    pairs, bye = pair(ranked, points, met, had_bye)
    matches = [Match(match_id(number, i), number, i, STAGE, a, b) for i, (a, b) in enumerate(pairs)]
    if bye is not None:
        matches.append(Match(match_id(number, len(matches)), number, len(matches), STAGE, bye, None, "bye"))
    return matches, PairingInputs(
        "weighted matching: no rematch, then equal points, then ranking neighbours",
        (tuple(ranked),), tuple(points[t] for t in ranked), tuple(t for t in ranked if t in had_bye))


def ranking(state: ChampionshipState) -> tuple[str | None, tuple[RankEntry, ...]]:
    records, _, _ = history(state)
    seeds = seed_order(state)
    for t in seeds:
        records.setdefault(t, TeamRecord(t))
    ranked = order(records, seeds, swiss=True)
    entries = tuple(RankEntry(i, t, f"{records[t].points} points") for i, t in enumerate(ranked, 1))
    return (ranked[0] if ranked else None), entries
