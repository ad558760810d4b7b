"""The bracket as a graph: matches are nodes; a team's previous match feeds its next one by a
"winner" or "loser" edge (loser edges are the drops into the losers' bracket). Each team's path is
the list of its matches. A pure fold: `initial()` + `evolve(state, event)`.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec.structs import replace

from domain.tournament import events as e
from domain.tournament.persistent import PMap, PVec


class Node(msgspec.Struct, frozen=True):
    match_id: str
    round: int
    stage: str
    team_a: str | None
    team_b: str | None
    note: str = ""
    winner: str | None = None
    decided: str = ""          # played, forfeit, double_forfeit, bye, walkover, void
    games: tuple[int, int] | None = None       # a played match: games won by team A and team B
    points: tuple[int, int] | None = None      # and their game points


class Edge(msgspec.Struct, frozen=True):
    source: str                # the earlier match
    target: str                # the match it feeds
    kind: Literal["winner", "loser"]
    team: str


class Bracket(msgspec.Struct, frozen=True):
    nodes: PMap = PMap()       # match_id -> Node
    order: PVec = PVec()       # match ids in the order they were paired
    edges: PVec = PVec()
    last: PMap = PMap()        # team -> (match_id, "winner" | "loser")
    paths: PMap = PMap()       # team -> tuple of match ids


def initial() -> Bracket:
    return Bracket()


def _decide(state: Bracket, match_id: str, winner: str | None, losers: tuple[str, ...], kind: str,
            result=None) -> Bracket:
    score = {} if result is None else {"games": (result.team_a_games, result.team_b_games),
                                       "points": (result.team_a_points, result.team_b_points)}
    nodes = state.nodes.set(match_id, replace(state.nodes[match_id], winner=winner, decided=kind, **score))
    last = state.last
    if winner is not None:
        last = last.set(winner, (match_id, "winner"))
    for team in losers:
        last = last.set(team, (match_id, "loser"))
    return replace(state, nodes=nodes, last=last)


def evolve(state: Bracket, event) -> Bracket:
    match event:
        case e.RoundPaired(_, matches):
            nodes, order, edges, paths = state.nodes, state.order, state.edges, state.paths
            for m in matches:
                nodes = nodes.set(m.match_id, Node(m.match_id, m.round, m.stage, m.team_a, m.team_b, m.note))
                order = order.append(m.match_id)
                for team in (m.team_a, m.team_b):
                    if team is None:
                        continue
                    previous = state.last.get(team)
                    if previous is not None:
                        edges = edges.append(Edge(previous[0], m.match_id, previous[1], team))
                    paths = paths.set(team, paths.get(team, ()) + (m.match_id,))
            state = replace(state, nodes=nodes, order=order, edges=edges, paths=paths)
            for m in matches:
                if m.note in ("bye", "walkover"):
                    state = _decide(state, m.match_id, m.team_a, (), m.note)
                elif m.note == "void":
                    state = _decide(state, m.match_id, None, (), "void")
            return state
        case e.MatchResultRecorded(match_id, winner, loser, result):
            return _decide(state, match_id, winner, (loser,), "played", result)
        case e.MatchForfeited(match_id, winner, absent):
            return _decide(state, match_id, winner, (absent,), "forfeit")
        case e.MatchDoubleForfeited(match_id, absent):
            return _decide(state, match_id, None, tuple(absent), "double_forfeit")
    return state


def nodes(state: Bracket) -> list[Node]:
    """Every match, in pairing order."""
    return [state.nodes[m] for m in state.order]


def path(state: Bracket, team: str) -> list[Node]:
    """A team's matches, first to last."""
    return [state.nodes[m] for m in state.paths.get(team, ())]


def feeders(state: Bracket, match_id: str) -> list[Edge]:
    """The edges into a match: where each of its teams came from."""
    return [edge for edge in state.edges if edge.target == match_id]
