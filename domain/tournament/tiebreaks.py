"""Standings records and tie-breakers, shared by the final ranking and the standings projection.

Order of a table (documented for organisers):
* Swiss: points (1 per win, forfeit win or bye), then Buchholz (sum of the points of the opponents
  met, byes count nothing), then head-to-head (wins in matches among the tied teams), then game-point
  difference, then game points scored, then seed.
* Round robin and elimination tables: wins, then head-to-head, then game-point difference, then game
  points scored, then seed.
A forfeit counts as a win for the present team with no game points; a double forfeit as a loss for both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import msgspec

from domain.tournament.events import Match
from domain.tournament.state import MatchOutcome


class TeamRecord(msgspec.Struct, frozen=True):
    team_id: str
    points: int = 0
    wins: int = 0
    losses: int = 0
    byes: int = 0
    forfeits: int = 0
    game_points_for: int = 0
    game_points_against: int = 0
    opponents: tuple[str, ...] = ()
    beaten: tuple[str, ...] = ()

    @property
    def game_point_difference(self) -> int:
        return self.game_points_for - self.game_points_against


def credit(get: Callable[[str], TeamRecord], match: Match, outcome: MatchOutcome) -> list[TeamRecord]:
    """The records of a match's teams after its outcome; `get(team)` returns the current record."""
    a, b = match.team_a, match.team_b
    if a is None:
        return []
    replace = msgspec.structs.replace
    if b is None:
        if outcome.kind == "bye" and match.stage not in ("round robin",):
            r = get(a)
            return [replace(r, points=r.points + 1, byes=r.byes + 1)]
        return []
    ra, rb = get(a), get(b)
    pa = pb = 0
    if outcome.result is not None:
        pa, pb = outcome.result.team_a_points, outcome.result.team_b_points
    forfeit = outcome.kind in ("forfeit", "double_forfeit")
    out = []
    for r, opp, mine, theirs in ((ra, b, pa, pb), (rb, a, pb, pa)):
        won = outcome.winner == r.team_id
        out.append(replace(
            r, points=r.points + won, wins=r.wins + won, losses=r.losses + (r.team_id in outcome.losers),
            forfeits=r.forfeits + (forfeit and not won),
            game_points_for=r.game_points_for + mine, game_points_against=r.game_points_against + theirs,
            opponents=r.opponents + (opp,), beaten=r.beaten + ((opp,) if won else ())))
    return out


def buchholz(records: Mapping[str, TeamRecord], team: str) -> int:
    """Sum of the points of every opponent met (strength of schedule)."""
    return sum(records[o].points for o in records[team].opponents if o in records)


def order(records: Mapping[str, TeamRecord], seeds: list[str], swiss: bool) -> list[str]:
    """Teams of `seeds` that have records, best first, by the tie-breakers above."""
    seed = {t: i for i, t in enumerate(seeds)}
    teams = [t for t in seeds if t in records]
    if swiss:
        primary = {t: (-records[t].points, -buchholz(records, t)) for t in teams}
    else:
        primary = {t: (-records[t].wins,) for t in teams}
    teams.sort(key=lambda t: (primary[t], seed[t]))
    ranked: list[str] = []
    i = 0
    while i < len(teams):
        j = i
        while j < len(teams) and primary[teams[j]] == primary[teams[i]]:
            j += 1
        tied = teams[i:j]
        if len(tied) > 1:
            group = set(tied)
            h2h = {t: sum(1 for o in records[t].beaten if o in group) for t in tied}
            tied.sort(key=lambda t: (-h2h[t], -records[t].game_point_difference,
                                     -records[t].game_points_for, seed[t]))
        ranked += tied
        i = j
    return ranked
