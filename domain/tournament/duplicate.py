"""Duplicate: teams meet in Swiss rounds, and each match is played on the round's boards at two tables with
the seats swapped, so each team holds both sides of the same cards and the luck of the deal cancels out.

* The round's boards: board set ``<championship>/round-<n>`` whose seed derives from the draw's revealed seed
  (``round_seed``), the same boards for every match of the round (``domain.baloot.daily``: seed, dealer).
* At table 1 team A (the higher-ranked, listed first) holds seats 0 and 2; at table 2 it holds seats 1 and 3.
  A board's score for A is its GP at both tables minus B's (``final_scores`` keeps, per board, A's and B's
  GP over the two tables), worth ``domain.baloot.daily.imps`` of that difference (head to head).
* The match goes to the team with more IMPs; equal IMPs: more GP over the boards; still equal: team A (the
  Swiss pairing lists the higher-ranked team first). ``team_a_games`` / ``team_b_games`` are 1 and 0.
* Pairings and the final ranking are Swiss (``swiss.py``: points, Buchholz, head to head, GP difference).
"""

from __future__ import annotations

import hashlib

from domain.baloot import daily
from domain.tournament import swiss
from domain.tournament.events import Match, PairingInputs, RankEntry
from domain.tournament.results import MatchResult
from domain.tournament.state import ChampionshipState

STAGE = "duplicate"


def round_seed(draw_seed: str, championship_id: str, round_number: int) -> str:
    """The seed of a round's board set: hex SHA-256 of ``baloot-duplicate/1:<draw seed>:<id>:<round>``."""
    return hashlib.sha256(f"baloot-duplicate/1:{draw_seed}:{championship_id}:{round_number}".encode()).hexdigest()


def round_boards(state: ChampionshipState, round_number: int) -> tuple[daily.Board, ...]:
    seed = round_seed(state.draw.seed, state.championship_id, round_number)
    return daily.boards(f"{state.championship_id}/round-{round_number}", seed, state.settings.duplicate_boards)


def board_score(table_1: tuple[int, int], table_2: tuple[int, int]) -> tuple[int, int]:
    """(A's GP, B's GP) on a board from the game points at each table (A holds seats 0+2 at table 1)."""
    return table_1[0] + table_2[1], table_1[1] + table_2[0]


def match_imps(boards: tuple[tuple[int, int], ...]) -> tuple[int, int]:
    """IMPs won by A and by B over the boards (each board's IMPs go to the team that gained them)."""
    scores = [daily.imps(a - b) for a, b in boards]
    return sum(i for i in scores if i > 0), -sum(i for i in scores if i < 0)


def duplicate_result(boards: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> MatchResult:
    """The match result of a duplicate match from each board's (A's GP, B's GP) over both tables."""
    boards = tuple((int(a), int(b)) for a, b in boards)
    ia, ib = match_imps(boards)
    pa, pb = sum(a for a, _ in boards), sum(b for _, b in boards)
    a_wins = (ia, pa) >= (ib, pb)
    return MatchResult(team_a_games=int(a_wins), team_b_games=int(not a_wins), team_a_points=pa, team_b_points=pb,
                       final_scores=boards, winner="a" if a_wins else "b")


def result_problem(result: MatchResult, boards: int) -> tuple[str, str] | None:
    """Why ``result`` is not a duplicate match's result of ``boards`` boards (rule, words), or None."""
    if len(result.final_scores) != boards:
        return "duplicate_boards", f"a duplicate match has {boards} boards, not {len(result.final_scores)}"
    if result != duplicate_result(result.final_scores):
        return "duplicate_result", "the winner, games and totals must follow from the boards (IMPs, then GP)"
    return None


def next_round(state: ChampionshipState) -> tuple[list[Match], PairingInputs] | None:
    paired = swiss.next_round(state)
    if paired is None:
        return None
    matches, inputs = paired
    return ([Match(m.match_id, m.round, m.index, STAGE, m.team_a, m.team_b, m.note) for m in matches],
            PairingInputs("duplicate, Swiss pairing: " + inputs.method, inputs.lists, inputs.scores,
                          inputs.had_bye))


def ranking(state: ChampionshipState) -> tuple[str | None, tuple[RankEntry, ...]]:
    return swiss.ranking(state)
