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


# ---- a section of the drawing: what a page shows of a bracket too large to send whole ----

FOLLOWED = ("losers", "grand final", "grand final reset")     # stages whose matches are paired as teams come
TREES = ("main", "winners", "final bracket")                  # trees down to one winner, known from the draw
NOT_KNOCKOUT = ("swiss", "round robin", "duplicate")


def _binary(stage: str) -> bool:
    """A stage where the winners of matches 2j and 2j+1 meet in match j: a tree (a group's bracket too)."""
    return stage not in FOLLOWED and stage not in NOT_KNOCKOUT


class Slot(msgspec.Struct, frozen=True):
    node: Node | None              # None: a match of the tree not paired yet (its teams not known)
    feeders: tuple[int, ...]       # the slots of the previous column whose winners it takes


class Column(msgspec.Struct, frozen=True):
    round: int | None              # None: a round not paired yet
    slots: tuple[Slot, ...]


class StageRounds(msgspec.Struct, frozen=True):
    stage: str
    rounds: tuple[tuple[int, int], ...]     # (round, its matches of this stage), paired so far
    total_rounds: int                       # as many as the tree will have (a binary stage), else paired so far


class Section(msgspec.Struct, frozen=True):
    stage: str
    round: int
    section: int                   # from 1: which block of `size` matches of the first column
    sections: int
    size: int
    columns: tuple[Column, ...]
    stages: tuple[StageRounds, ...]


Stages = dict[str, dict[int, list[Node]]]


def by_stage(state: Bracket) -> Stages:
    """Knock-out stages, in the order they started: round -> its matches of the stage, in pairing order (one
    pass over every match: computed once per question and handed to ``outline``, ``place`` and ``section``)."""
    stages: Stages = {}
    for match_id in state.order:
        n = state.nodes[match_id]
        if n.stage not in NOT_KNOCKOUT:
            stages.setdefault(n.stage, {}).setdefault(n.round, []).append(n)
    return stages


def _total_rounds(stage: str, rounds: dict[int, list[Node]]) -> int:
    if stage not in TREES:          # a group's bracket stops at its qualifiers: known once paired
        return len(rounds)
    return len(rounds) and max(1, len(rounds[min(rounds)]).bit_length())


def outline(stages: Stages) -> tuple[StageRounds, ...]:
    """Each knock-out stage's rounds (of ``by_stage``) with their number of matches."""
    return tuple(StageRounds(stage, tuple((r, len(ns)) for r, ns in sorted(rounds.items())),
                             _total_rounds(stage, rounds))
                 for stage, rounds in stages.items())


def place(state: Bracket, match_id: str, stages: Stages) -> tuple[str, int, int] | None:
    """(stage, round, position among the stage's matches of that round) of a knock-out match."""
    node = state.nodes.get(match_id)
    if node is None or node.stage in NOT_KNOCKOUT:
        return None
    ids = [n.match_id for n in stages[node.stage][node.round]]
    return node.stage, node.round, ids.index(match_id)


def section(state: Bracket, stage: str, round_no: int, number: int, size: int, depth: int,
            stages: Stages | None = None) -> Section | None:
    """Block ``number`` (from 1) of ``size`` matches of ``stage``'s round ``round_no``, and the matches their
    winners go on to over ``depth`` columns in all. In a binary stage the later columns are the tree's slots,
    not paired ones included (so a live bracket shows where each winner goes); elsewhere they are the matches
    the shown ones' winners were paired into. None: no such stage or round. ``stages``: ``by_stage(state)``,
    if the caller has it already."""
    stages = by_stage(state) if stages is None else stages
    rounds = stages.get(stage, {})
    if round_no not in rounds:
        return None
    numbers = sorted(rounds)
    first = rounds[round_no]
    sections = -(-len(first) // size)
    number = min(max(number, 1), sections)
    start = (number - 1) * size
    columns = [Column(round_no, tuple(Slot(n, ()) for n in first[start:start + size]))]
    later = numbers[numbers.index(round_no) + 1:]
    if _binary(stage):
        remaining = _total_rounds(stage, rounds) - numbers.index(round_no) - 1
        for c in range(1, min(depth, remaining + 1)):
            previous = columns[-1].slots
            lo = start >> c
            count = (len(previous) + 1) // 2
            paired = rounds[later[c - 1]] if c - 1 < len(later) else None
            slots = tuple(Slot(paired[lo + j] if paired is not None and lo + j < len(paired) else None,
                               tuple(k for k in (2 * j, 2 * j + 1) if k < len(previous)))
                          for j in range(count))
            columns.append(Column(later[c - 1] if paired is not None else None, slots))
    else:
        for r in later[:depth - 1]:
            shown = {s.node.match_id: k for k, s in enumerate(columns[-1].slots) if s.node is not None}
            feeds: dict[str, list[int]] = {}
            for edge in state.edges:
                if edge.kind == "winner" and edge.source in shown:
                    feeds.setdefault(edge.target, []).append(shown[edge.source])
            slots = tuple(Slot(n, tuple(sorted(feeds[n.match_id]))) for n in rounds[r] if n.match_id in feeds)
            if not slots:
                break
            columns.append(Column(r, slots))
    return Section(stage, round_no, number, sections, size, tuple(columns), outline(stages))
