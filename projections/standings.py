"""Standings: a pure fold of tournament events into each team's record, ordered by the tie-breakers.

`initial()` + `evolve(state, event)`; `table(state)` orders the teams. The tie-breakers are those of
`domain.tournament.tiebreaks` (documented there): points and Buchholz first in Swiss; wins first
elsewhere; then head-to-head, game-point difference, game points scored, seed.
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.tournament import events as e
from domain.tournament.persistent import PMap, PVec
from domain.tournament.state import MatchOutcome
from domain.tournament.tiebreaks import TeamRecord, buchholz, credit, order


class Standings(msgspec.Struct, frozen=True):
    format: str = ""
    seeds: PVec = PVec()       # draw order, then late entries
    records: PMap = PMap()     # team_id -> TeamRecord


class StandingRow(msgspec.Struct, frozen=True):
    rank: int
    team_id: str
    points: int
    wins: int
    losses: int
    byes: int
    buchholz: int
    game_point_difference: int
    game_points_for: int
    name: str = ""                 # what people call the team (filled by the API, not kept in the read model)


def initial() -> Standings:
    return Standings()


def _credit(state: Standings, match: e.Match, outcome: MatchOutcome) -> Standings:
    records = state.records

    def get(team: str) -> TeamRecord:
        return records.get(team) or TeamRecord(team)

    for r in credit(get, match, outcome):
        records = records.set(r.team_id, r)
    return replace(state, records=records)


def evolve(state: Standings, event) -> Standings:
    match event:
        case e.ChampionshipCreated(_, settings):
            return replace(state, format=settings.format)
        case e.DrawMade(_, _, order_):
            return replace(state, seeds=PVec(order_),
                           records=PMap((t, TeamRecord(t)) for t in order_))
        case e.TeamRegistered(team_id, _, _, True):
            return replace(state, seeds=state.seeds.append(team_id),
                           records=state.records.set(team_id, TeamRecord(team_id)))
        case e.RoundPaired(_, matches):
            for m in matches:
                if m.note == "bye":
                    state = _credit(state, m, MatchOutcome("bye", m.team_a))
            return state
        case e.MatchResultRecorded(match_id, winner, loser, result):
            a, b = (winner, loser) if result.winner == "a" else (loser, winner)
            return _credit(state, e.Match(match_id, 0, 0, "", a, b),
                           MatchOutcome("played", winner, (loser,), result))
        case e.MatchForfeited(match_id, winner, absent):
            return _credit(state, e.Match(match_id, 0, 0, "", winner, absent),
                           MatchOutcome("forfeit", winner, (absent,)))
        case e.MatchDoubleForfeited(match_id, absent):
            return _credit(state, e.Match(match_id, 0, 0, "", absent[0], absent[1]),
                           MatchOutcome("double_forfeit", None, tuple(absent)))
    return state


def table(state: Standings) -> list[StandingRow]:
    """Every team, best first, with the figures the tie-breakers read."""
    seeds = list(state.seeds)
    rows = []
    for rank, t in enumerate(order(state.records, seeds, swiss=state.format in ("swiss", "duplicate")), 1):
        r = state.records[t]
        rows.append(StandingRow(rank, t, r.points, r.wins, r.losses, r.byes, buchholz(state.records, t),
                                r.game_point_difference, r.game_points_for))
    return rows
