"""The rule profiles of each game with their switches (``GET /profiles``) and what a table of each game takes
(``GET /games``): what a form offers, read from the profiles and the games' seams themselves
(``domain/*/profiles.py``, ``domain/*/seam.py``), so that a switch or a bot level added there is offered here,
and a form never offers what ``POST /tables`` refuses."""

from __future__ import annotations


import msgspec
from litestar import Router, get

from domain import games
from services.api.schemas_profiles import Switch, ProfileOut, GameOut


def _switch(name: str, kind: msgspec.inspect.Type, value) -> Switch | None:
    optional = isinstance(kind, msgspec.inspect.UnionType) and any(
        isinstance(t, msgspec.inspect.NoneType) for t in kind.types)
    if optional:
        kind = next(t for t in kind.types if not isinstance(t, msgspec.inspect.NoneType))
    match kind:
        case msgspec.inspect.BoolType():
            return Switch(name, "bool", value, optional=optional)
        case msgspec.inspect.IntType():
            return Switch(name, "int", value, optional=optional)
        case msgspec.inspect.LiteralType():
            return Switch(name, "choice", value, [str(v) for v in kind.values], optional)
    return None


def profiles_of(game: str) -> list[ProfileOut]:
    seam = games.get(game)
    out = []
    for name in seam.info.profile_names:
        profile = seam.profile(name)
        fields = msgspec.inspect.type_info(type(profile)).fields
        switches = [s for f in fields if f.name != "name"
                    if (s := _switch(f.name, f.type, getattr(profile, f.name))) is not None]
        out.append(ProfileOut(name, switches))
    return out


def game_out(name: str) -> GameOut:
    i = games.get(name).info
    return GameOut(i.name, i.seat_counts.start, i.seat_counts.stop - 1, list(i.profile_names), i.default_profile,
                   list(i.bot_levels), i.default_bot, list(i.table_modes), list(i.timeout_rules))


@get("/games", operation_id="listGames", summary="Each game with what a table of it takes: seats, profiles, "
                                                 "bot levels, table modes and turn-clock rules")
async def list_games() -> list[GameOut]:
    return [game_out(name) for name in games.names()]


@get("/", operation_id="listProfiles", summary="Each game's rule profiles with their switches and values")
async def list_profiles() -> dict[str, list[ProfileOut]]:
    return {game: profiles_of(game) for game in games.names()}


profile_router = Router(tags=["tables"], path="/profiles", route_handlers=[list_profiles])
games_router = Router(tags=["tables"], path="/", route_handlers=[list_games])
