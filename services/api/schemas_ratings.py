"""Ratings on the wire: a game's leaderboard page and a player's page (``routes_ratings``)."""

from __future__ import annotations

import msgspec

from services.ratings import RatedPlayer, RecentResult


class LeaderboardPage(msgspec.Struct):
    game: str
    rows: list[RatedPlayer]
    next_after_ordinal: float | None          # the next page: after_ordinal and after_user set to these
    next_after_user: str | None


class GameRating(msgspec.Struct):
    game: str
    mu: float
    sigma: float                              # the uncertainty: it shrinks with every game
    ordinal: float                            # mu - 3 sigma: what the leaderboard ranks by
    games: int


class PlayedIn(msgspec.Struct):
    championship_id: str
    name: str


class RecentOut(RecentResult):
    """A rated result with whom it was against: the other team of the match, or the others at a dice table."""

    opponents: list[str] = []


class PlayerOut(msgspec.Struct):
    user_id: str
    name: str
    kind: str
    ratings: list[GameRating]
    recent: list[RecentOut]                   # the newest first
    championships: list[PlayedIn]
