"""Double elimination: a team is out after its second loss.

The winners' bracket is a seeded knock-out (byes in its first round only). Losers of each
winners' round wait as a batch; the losers' bracket alternates the classic way: when the oldest batch
is as large as the survivors it drops in against them (a "major" round, batch order reversed so teams
do not meet again at once), when smaller the survivors first play each other ("minor" round), when
larger the two are pooled. Odd pools give one losers'-bracket bye, to the lowest-placed team that
has not had one. Rematches are avoided by swapping partners within the round where a swap exists.
The grand final sets the winners' champion against the losers' champion; with `grand_final_reset`,
a win by the losers' champion (its first loss for the other side) forces a deciding reset match;
a grand final won by forfeit is not reset.
"""

from __future__ import annotations

from domain.tournament.bracket import first_round_slots, pair_slots, winners
from domain.tournament.events import Match, PairingInputs, RankEntry
from domain.tournament.ranking import elimination_ranking
from domain.tournament.state import ChampionshipState, match_id

WINNERS, LOSERS, GRAND_FINAL, RESET = "winners", "losers", "grand final", "grand final reset"
_WINDOW = 16


def _history(state: ChampionshipState) -> tuple[dict[str, set[str]], set[str]]:
    """Opponents met so far, and teams that already had a losers'-bracket bye."""
    met: dict[str, set[str]] = {}
    lb_bye: set[str] = set()
    for round_ in state.rounds:
        for m in round_.matches:
            if m.team_a is not None and m.team_b is not None:
                met.setdefault(m.team_a, set()).add(m.team_b)
                met.setdefault(m.team_b, set()).add(m.team_a)
            elif m.stage == LOSERS and m.note == "bye":
                lb_bye.add(m.team_a)
    return met, lb_bye


def _met(met: dict[str, set[str]], a: str, b: str) -> bool:
    return b in met.get(a, ())


def _pool_pairs(pool: list[str], met: dict[str, set[str]], lb_bye: set[str], withdrawn: set[str]
                ) -> tuple[list[tuple[str, str]], str | None]:
    """Pair neighbours in `pool`, skipping to a later partner (within a window) to avoid a rematch."""
    pool = list(pool)
    bye = None
    if len(pool) % 2:
        candidates = [t for t in reversed(pool) if t not in lb_bye and t not in withdrawn]
        bye = candidates[0] if candidates else pool[-1]
        pool.remove(bye)
    pairs = []
    while pool:
        a = pool.pop(0)
        j = next((j for j in range(min(len(pool), _WINDOW)) if not _met(met, a, pool[j])), 0)
        pairs.append((a, pool.pop(j)))
    return pairs, bye


def _major_pairs(survivors: list[str], batch: list[str], met: dict[str, set[str]]
                 ) -> list[tuple[str, str]]:
    """Survivor i meets dropped team i of the reversed batch, swapping partners to avoid rematches."""
    partners = list(reversed(batch))
    for i, a in enumerate(survivors):
        if _met(met, a, partners[i]):
            nearby = range(max(0, i - _WINDOW), min(len(partners), i + _WINDOW))
            for j in sorted(nearby, key=lambda j: abs(j - i)):
                if j != i and not _met(met, a, partners[j]) and not _met(met, survivors[j], partners[i]):
                    partners[i], partners[j] = partners[j], partners[i]
                    break
    return list(zip(survivors, partners))


def _state_after(state: ChampionshipState) -> tuple[list[str | None], list[str], list[list[str]], str]:
    """Winners' slots, losers' survivors, waiting batches and the phase after the last round."""
    if not state.rounds:
        return first_round_slots(list(state.draw.order)), [], [], "start"
    last = state.rounds[-1]
    lists = last.inputs.lists
    wb, survivors, batches = list(lists[0]), list(lists[1]), [list(b) for b in lists[2:]]
    wb_matches = [m for m in last.matches if m.stage == WINNERS]
    lb_matches = [m for m in last.matches if m.stage == LOSERS]
    if wb_matches:
        wb = winners(last, wb_matches)
        dropped = [t for m in wb_matches for t in last.outcomes[m.index].losers]
        if dropped:
            batches.append(dropped)
    if lb_matches:
        consumed = set(t for m in lb_matches for t in (m.team_a, m.team_b) if t is not None)
        batches = [b for b in batches if not consumed.intersection(b)]
        survivors = [w for w in winners(last, lb_matches) if w is not None]
    return wb, survivors, batches, last.inputs.phase


def next_round(state: ChampionshipState) -> tuple[list[Match], PairingInputs] | None:
    number = len(state.rounds) + 1
    if state.rounds and state.rounds[-1].inputs.phase in (GRAND_FINAL, RESET):
        last = state.rounds[-1]
        final = last.matches[0]
        outcome = last.outcomes[0]
        if (last.inputs.phase == RESET or not state.settings.grand_final_reset
                or outcome.winner != final.team_b or outcome.kind != "played"):
            return None
        return ([Match(match_id(number, 0), number, 0, RESET, final.team_a, final.team_b)],
                PairingInputs("the losers' champion won the grand final: reset", last.inputs.lists,
                              phase=RESET))
    wb, survivors, batches, _ = _state_after(state)
    if batches and not survivors and len(batches[0]) == 1:
        survivors = batches.pop(0)      # a lone dropped team needs no opponent to reach the survivors
    inputs_lists = (tuple(wb), tuple(survivors), *(tuple(b) for b in batches))
    matches: list[Match] = []
    if len(wb) > 1:
        matches = pair_slots(wb, number, WINNERS, 0, first_round=number == 1)
    wb_done = len(wb) <= 1
    met, lb_bye = _history(state)
    withdrawn = {t for t in survivors if state.teams[t].withdrawn}
    pairs: list[tuple[str, str]] = []
    bye = None
    method = "winners' bracket: winners of 2j and 2j+1 meet"
    if batches and len(batches[0]) == len(survivors):
        pairs = _major_pairs(survivors, batches[0], met)
        method += "; losers' major round: survivors meet the oldest batch, reversed"
    elif batches and len(batches[0]) > len(survivors):
        pool = survivors + batches[0]
        pairs, bye = _pool_pairs(pool, met, lb_bye, withdrawn | {t for t in pool
                                                                 if state.teams[t].withdrawn})
        method += "; losers' pooled round: survivors and the oldest batch"
    elif len(survivors) > 1 and (batches or wb_done):
        pairs, bye = _pool_pairs(survivors, met, lb_bye, withdrawn)
        method += "; losers' minor round: survivors meet each other"
    elif wb_done and not batches and not matches:
        champion_wb = wb[0] if wb else None
        champion_lb = survivors[0] if survivors else None
        if champion_wb is None or champion_lb is None:
            return None
        return ([Match(match_id(number, 0), number, 0, GRAND_FINAL, champion_wb, champion_lb)],
                PairingInputs("grand final: winners' champion against losers' champion",
                              inputs_lists, phase=GRAND_FINAL))
    start = len(matches)
    for i, (a, b) in enumerate(pairs):
        matches.append(Match(match_id(number, start + i), number, start + i, LOSERS, a, b))
    if bye is not None:
        i = len(matches)
        matches.append(Match(match_id(number, i), number, i, LOSERS, bye, None, "bye"))
    if not matches:
        return None
    return matches, PairingInputs(method, inputs_lists, phase="brackets")


def champion(state: ChampionshipState) -> str | None:
    if not state.rounds:
        return state.draw.order[0] if state.draw and state.draw.order else None
    last = state.rounds[-1]
    if last.inputs.phase in (GRAND_FINAL, RESET):
        return last.outcomes[0].winner
    wb, survivors, batches, _ = _state_after(state)
    alive = [t for t in wb if t is not None] + survivors + [t for b in batches for t in b]
    return alive[0] if len(alive) == 1 else None


def ranking(state: ChampionshipState) -> tuple[str | None, tuple[RankEntry, ...]]:
    winner = champion(state)
    runner_up = None
    last = state.rounds[-1] if state.rounds else None
    if last is not None and last.inputs.phase in (GRAND_FINAL, RESET):
        m = last.matches[0]
        runner_up = m.team_b if winner == m.team_a else m.team_a
    return winner, elimination_ranking(state, winner, runner_up,
                                       label=lambda rnd, stage: f"{stage} bracket, round {rnd}")
