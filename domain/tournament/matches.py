"""How a match goes on from its finished games: another game, or its result."""

from __future__ import annotations

from domain.seam import MatchGame
from domain.tournament.commands import RecordDoubleForfeit, RecordMatchResult
from domain.tournament.results import games_to_win, match_result


def after_games(match_id: str, games: list[MatchGame | None], match_games: int
                ) -> RecordMatchResult | RecordDoubleForfeit | None:
    """What the match's finished games, in order, decide (``None`` for a game nobody won: both teams abandoned
    it): a double forfeit at such a game (neither team goes on), the match's result once a team has won enough
    games of a best-of-``match_games``, else None: the next game is to be played."""
    for number, game in enumerate(games, start=1):
        if game is None:
            return RecordDoubleForfeit(match_id, f"game {number} abandoned by both teams")
    wins_a = sum(g.winner == "a" for g in games)
    if max(wins_a, len(games) - wins_a) < games_to_win(match_games):
        return None
    return RecordMatchResult(match_id, match_result(games, match_games))
