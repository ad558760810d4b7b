"""The rule profiles of each game with their switches (``GET /profiles``): what a form offers, read from the
profiles themselves (``domain/*/profiles.py``), so that a switch added there is offered here."""

from __future__ import annotations

from typing import Literal

import msgspec
from litestar import Router, get

from domain.games import GAMES


class Switch(msgspec.Struct):
    name: str
    kind: Literal["bool", "int", "choice"]
    value: bool | int | str | None             # the profile's own
    choices: list[str] | None = None           # a choice's values
    optional: bool = False                     # null is a value too (no threshold, no cap)


class ProfileOut(msgspec.Struct):
    name: str
    switches: list[Switch]


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
    seam = GAMES[game]
    out = []
    for name in seam.info.profile_names:
        profile = seam.profile(name)
        fields = msgspec.inspect.type_info(type(profile)).fields
        switches = [s for f in fields if f.name != "name"
                    if (s := _switch(f.name, f.type, getattr(profile, f.name))) is not None]
        out.append(ProfileOut(name, switches))
    return out


@get("/", operation_id="listProfiles", summary="Each game's rule profiles with their switches and values")
async def list_profiles() -> dict[str, list[ProfileOut]]:
    return {game: profiles_of(game) for game in GAMES}


profile_router = Router(tags=["tables"], path="/profiles", route_handlers=[list_profiles])
