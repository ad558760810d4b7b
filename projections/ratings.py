"""Players' ratings from results: openskill's Plackett-Luce model, one rating per player per game.

A card-game match is two teams of two: the winners ranked first. A dice table (Balut) is every player for
himself, ranked by his place (ties share it). Each update gives every player his new rating in absolute
values (mu, sigma), so a stored update says the rating itself, not a change to apply; replaying the same
results in the same order gives the same ratings. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
from openskill.models import PlackettLuce

MODEL = PlackettLuce()
START_MU, START_SIGMA = MODEL.mu, MODEL.sigma


class Rating(msgspec.Struct, frozen=True):
    mu: float = START_MU
    sigma: float = START_SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        """A cautious estimate (mu - 3 sigma): what a leaderboard ranks by, so a newcomer starts low."""
        return self.mu - 3 * self.sigma


def rate(current: Mapping[str, Rating], sides: list[tuple[str, ...]], places: list[int]) -> dict[str, Rating]:
    """The new ratings of the players of ``sides`` (teams, or one player each), finishing at ``places`` (1 is
    first; equal places tie). A player not in ``current`` starts at openskill's default."""
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma) for r in (current.get(p, Rating()) for p in side)]
             for side in sides]
    rated = MODEL.rate(teams, ranks=list(places))
    return {p: Rating(new.mu, new.sigma, current.get(p, Rating()).games + 1)
            for side, new_side in zip(sides, rated) for p, new in zip(side, new_side)}


def rate_match(current: Mapping[str, Rating], winners: tuple[str, ...], losers: tuple[str, ...]
               ) -> dict[str, Rating]:
    """The new ratings of the players of a match won by ``winners``."""
    return rate(current, [winners, losers], [1, 2])
