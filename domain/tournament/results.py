"""Match results from the games of a table: the interface between the rules engine and a championship.

A knock-out match (مباراة) is one game to 152 (صكة) or best of N games. Each game of it is a `MatchGame`
(``domain.seam``: each game says how its result becomes one); `match_result` folds them into the
`MatchResult` that tie-breakers use.
"""

from __future__ import annotations

import msgspec

from domain.seam import MatchGame, Side
from domain.tournament.errors import ChampionshipRuleError

__all__ = ["MatchGame", "MatchResult", "Side", "game_result", "games_to_win", "match_result"]


class MatchResult(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Game wins, game-point totals and each game's final scores, from team A's and team B's side."""

    team_a_games: int
    team_b_games: int
    team_a_points: int
    team_b_points: int
    final_scores: tuple[tuple[int, int], ...]
    winner: Side
    game_ends: tuple[str, ...] = ()      # how each game ended (empty: all at the target)


def games_to_win(match_games: int) -> int:
    """Game wins that decide a best-of-`match_games` match."""
    return match_games // 2 + 1


def match_result(games: list[MatchGame] | tuple[MatchGame, ...], match_games: int = 1) -> MatchResult:
    """Fold the games of one table into its match result; the match must be decided by its last game."""
    needed = games_to_win(match_games)
    wins = {"a": 0, "b": 0}
    for number, game in enumerate(games, start=1):
        if max(wins.values()) >= needed:
            raise ChampionshipRuleError(
                "match_length",
                f"game {number} was played after the match was decided (best of {match_games})")
        wins[game.winner] += 1
    if max(wins.values()) < needed:
        raise ChampionshipRuleError(
            "tournament_rule",
            f"the match is not decided: {wins['a']}-{wins['b']} in games, {needed} wins are needed")
    return MatchResult(
        team_a_games=wins["a"], team_b_games=wins["b"],
        team_a_points=sum(g.team_a_points for g in games),
        team_b_points=sum(g.team_b_points for g in games),
        final_scores=tuple((g.team_a_points, g.team_b_points) for g in games),
        winner="a" if wins["a"] >= needed else "b",
        game_ends=() if all(g.ended_by == "target" for g in games) else tuple(g.ended_by for g in games),
    )


def game_result(scores: tuple[int, int], target: int = 152) -> MatchGame:
    """A `MatchGame` from final scores: the higher score wins (the engine breaks ties before this)."""
    a, b = scores
    if a == b:
        raise ChampionshipRuleError("tournament_rule",
                                  f"a game cannot end level at {a}-{b}: the engine decides the winner")
    return MatchGame(team_a_points=a, team_b_points=b, winner="a" if a > b else "b")
