"""Final rankings of elimination formats: later elimination ranks higher; one rank per round."""

from __future__ import annotations

from domain.tournament.events import RankEntry
from domain.tournament.state import ChampionshipState


def last_losses(state: ChampionshipState) -> dict[str, tuple[int, str]]:
    """Each team's last loss: (round, stage)."""
    lost: dict[str, tuple[int, str]] = {}
    for round_ in state.rounds:
        for match, outcome in zip(round_.matches, round_.outcomes):
            if outcome is not None:
                for team in outcome.losers:
                    lost[team] = (round_.number, match.stage)
    return lost


def elimination_ranking(state: ChampionshipState, champion: str | None, runner_up: str | None = None,
                        label=None) -> tuple[RankEntry, ...]:
    """Champion first, then the runner-up, then by round of last loss (latest first), seeds breaking no ties."""
    order = list(state.draw.order) if state.draw else []
    lost = last_losses(state)
    last_round = len(state.rounds)
    label = label or (lambda rnd, stage: f"{stage} round {rnd}")
    entries: list[RankEntry] = []
    if champion is not None:
        entries.append(RankEntry(1, champion, "champion"))
    rest = [t for t in order if t != champion]
    if runner_up is not None and runner_up in lost:
        entries.append(RankEntry(len(entries) + 1, runner_up, "final"))
        rest.remove(runner_up)
    keyed = sorted(rest, key=lambda t: -lost.get(t, (last_round + 1, ""))[0])
    previous, rank = None, 0
    for position, team in enumerate(keyed, start=len(entries) + 1):
        rnd, stage = lost.get(team, (0, "not eliminated"))
        if rnd != previous:
            previous, rank = rnd, position
        entries.append(RankEntry(rank, team, label(rnd, stage) if rnd else stage))
    return tuple(entries)
