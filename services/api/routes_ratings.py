"""Players' ratings (read model ``ratings_rm``, services/ratings.py): a game's leaderboard, keyset-paged, and a
player's page: his ratings with their uncertainty, his recent rated results and his championships."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Router, get
from litestar.params import FromPath, FromQuery, QueryParameter

from services.api.deps import Caller, Championships, Pool
from services.api.problems import Problem
from services import people
from services.ratings import RATED_GAMES, championships_of, leaderboard, opponents, \
    ratings_of, recent_results
from services.api.schemas_ratings import LeaderboardPage, GameRating, PlayedIn, RecentOut, PlayerOut

Game = Annotated[str, msgspec.Meta(pattern="^[a-z_]{1,32}$")]


@get("/ratings/{game:str}", operation_id="ratingsLeaderboard",
     summary="A game's rated players, best first (by mu - 3 sigma), a page at a time: pass the last page's "
             "next_after_ordinal and next_after_user to get the next")
async def get_leaderboard(game: FromPath[Game], user: Caller, pool: Pool,
                          after_ordinal: FromQuery[float | None] = None, after_user: FromQuery[str | None] = None,
                          limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50) -> LeaderboardPage:
    if game not in RATED_GAMES:
        raise Problem(404, "unrated_game", f"no ratings are kept for {game!r} (rated: {', '.join(RATED_GAMES)})",
                      field="game")
    after = (after_ordinal, after_user or "") if after_ordinal is not None else None
    rows = await leaderboard(pool, game, after, limit)
    last = rows[-1] if len(rows) == limit else None
    return LeaderboardPage(game, rows, last.ordinal if last else None, last.user_id if last else None)


@get("/players/{user_id:str}", operation_id="getPlayer",
     summary="A player: his name, his rating in each game with its uncertainty, his recent rated results and "
             "the championships he played")
async def get_player(user_id: FromPath[str], user: Caller, pool: Pool, championships: Championships) -> PlayerOut:
    row = await people.user(pool, user_id)
    if row is None:
        raise Problem(404, "unknown_user", f"there is no user {user_id!r}")
    ratings = [GameRating(game, r.mu, r.sigma, r.ordinal, r.games) for game, r in (await ratings_of(pool, user_id)).items()]
    played = [PlayedIn(cid, (await championships.load(cid)).state.settings.name)
              for cid in await championships_of(pool, user_id)]
    recent = await recent_results(pool, user_id)
    against = await opponents(pool, championships, user_id, recent)
    return PlayerOut(user_id, row["name"], row["kind"], ratings,
                     [RecentOut(*(getattr(r, f) for f in r.__struct_fields__), opponents=o) for r, o in zip(recent, against)],
                     played)


ratings_router = Router(tags=["ratings"], path="/", route_handlers=[get_leaderboard, get_player])
