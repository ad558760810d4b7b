"""The games the platform runs (the registry of ``domain.seam``): the card game (``baloot``) and the dice
game (``balut``). It imports each game's seam and is imported by the table and the services, never by a
game. A third game is a package with its ``seam.py`` and a line here (and its wire actions in the API).

Records are told apart by their ``format`` field (``record_format_of``), which is how ``baloot audit`` and
``POST /audit`` read either game's.
"""

from __future__ import annotations

import msgspec

from domain.baloot.seam import GAME as BALOOT
from domain.balut.seam import GAME as BALUT
from domain.seam import Game, RecordFormat

GAMES: dict[str, Game] = {g.info.name: g for g in (BALOOT, BALUT)}
# The game of a table whose ``table_opened`` names none: every table stored before there were two games.
FIRST = BALOOT.info.name
RECORD_FORMATS: dict[str, RecordFormat] = {g.info.record.name: g.info.record for g in GAMES.values()}


class _Head(msgspec.Struct):
    format: str | None = None


def record_format_of(data: bytes | str) -> RecordFormat:
    """The format of a record document, from its ``format`` field; ValueError when it has none we know."""
    try:
        name = msgspec.json.decode(data, type=_Head).format
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ValueError(f"not a JSON object: {exc}") from None
    if name not in RECORD_FORMATS:
        known = ", ".join(sorted(RECORD_FORMATS))
        raise ValueError(f"`$.format` is {name!r}, not a record format this engine reads ({known})")
    return RECORD_FORMATS[name]
