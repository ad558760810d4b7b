"""Games, rule profiles and players' pages on the wire: the answers of ``routes_profiles``."""

from __future__ import annotations

from typing import Literal

import msgspec


class Switch(msgspec.Struct):
    name: str
    kind: Literal["bool", "int", "choice"]
    value: bool | int | str | None             # the profile's own
    choices: list[str] | None = None           # a choice's values
    optional: bool = False                     # null is a value too (no threshold, no cap)


class ProfileOut(msgspec.Struct):
    name: str
    switches: list[Switch]


class GameOut(msgspec.Struct):
    """What a table of one game takes (``POST /tables``): how many seats, its profiles, bot levels, table modes
    and turn-clock rules, each with the default a table gets when it names none."""

    name: str
    min_seats: int
    max_seats: int
    profiles: list[str]
    default_profile: str
    bot_levels: list[str]
    default_bot: str
    table_modes: list[str]
    timeout_rules: list[str]
