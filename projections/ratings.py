"""Player ratings (openskill), updated once per played match and recorded as events.

`evolve` recomputes from `match_result_recorded` (forfeits rate nobody) and also folds stored
`player_ratings_updated` events, which carry absolute values, so replaying a merged feed is
idempotent. `rating_event(state, event)` gives the event to store after a match; `recompute(events)`
rebuilds every rating from the tournament events alone.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import ClassVar

import msgspec
from msgspec.structs import replace

from domain.tournament import events as e
from domain.tournament.persistent import PMap

MODEL_NAME = "PlackettLuce"


def model_version() -> str:
    return f"openskill {version('openskill')}"


class PlayerRating(msgspec.Struct, frozen=True):
    player: str
    mu: float
    sigma: float


class PlayerRatingsUpdated(msgspec.Struct, frozen=True, tag_field="type", tag="player_ratings_updated"):
    schema_version: ClassVar[int] = 1
    match_id: str
    model: str
    model_version: str
    ratings: tuple[PlayerRating, ...]


class Ratings(msgspec.Struct, frozen=True):
    model: str = MODEL_NAME
    model_version: str = ""
    lineups: PMap = PMap()     # team -> (player, player)
    ratings: PMap = PMap()     # player -> PlayerRating
    matches_rated: int = 0
    last_rated: str = ""       # a stored event repeating the last computed one is not counted twice


_MODEL = None


def _model():
    global _MODEL
    if _MODEL is None:
        from openskill.models import PlackettLuce
        _MODEL = PlackettLuce()
    return _MODEL


def initial() -> Ratings:
    return Ratings(model_version=model_version())


def rating(state: Ratings, player: str) -> PlayerRating:
    m = _model()
    return state.ratings.get(player) or PlayerRating(player, m.mu, m.sigma)


def rating_event(state: Ratings, event) -> PlayerRatingsUpdated | None:
    """The ratings after a played match, as the event to store; None for anything else."""
    if not isinstance(event, e.MatchResultRecorded):
        return None
    m = _model()
    teams = []
    for team in (event.winner, event.loser):
        teams.append([m.rating(mu=r.mu, sigma=r.sigma, name=r.player)
                      for r in (rating(state, p) for p in state.lineups.get(team, ()))])
    if not all(teams):
        return None
    rated = m.rate(teams, ranks=[0, 1])
    return PlayerRatingsUpdated(event.match_id, state.model, state.model_version, tuple(
        PlayerRating(r.name, r.mu, r.sigma) for team in rated for r in team))


def evolve(state: Ratings, event) -> Ratings:
    match event:
        case e.TeamRegistered(team_id, players):
            return replace(state, lineups=state.lineups.set(team_id, tuple(players)))
        case e.PlayerSubstituted(team_id, player_out, player_in):
            lineup = tuple(player_in if p == player_out else p for p in state.lineups[team_id])
            return replace(state, lineups=state.lineups.set(team_id, lineup))
        case e.MatchResultRecorded():
            updated = rating_event(state, event)
            return state if updated is None else evolve(state, updated)
        case PlayerRatingsUpdated(match_id, _, _, ratings):
            table = state.ratings
            for r in ratings:
                table = table.set(r.player, r)
            counted = state.matches_rated + (match_id != state.last_rated)
            return replace(state, ratings=table, matches_rated=counted, last_rated=match_id)
    return state


def recompute(events) -> Ratings:
    """Every rating rebuilt from the tournament events."""
    state = initial()
    for event in events:
        state = evolve(state, event)
    return state


def leaderboard(state: Ratings) -> list[PlayerRating]:
    """Players by conservative rating (mu - 3 sigma), best first."""
    return sorted((r for _, r in state.ratings.items()), key=lambda r: (-(r.mu - 3 * r.sigma), r.player))
