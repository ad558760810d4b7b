"""The games the platform runs (the registry of ``domain.seam``): the card game (``baloot``) and the dice
game (``balut``). It imports each game's seam and is imported by the table and the services, never by a
game. A third game is a package with its ``seam.py`` (its ``GameInfo.wire`` for the HTTP API) and a
``register`` line here; outside the games, code reaches one by name with ``get`` and every one with
``every``, and names none.

Registering comes before the services are imported: the event codec, the API's bodies and views take every
registered game's types once, when they are made.

Records are told apart by their ``format`` field (``record_format_of``), which is how ``baloot audit`` and
``POST /audit`` read either game's.
"""

from __future__ import annotations

from types import MappingProxyType

import msgspec

from domain.baloot.seam import GAME as BALOOT
from domain.balut.seam import GAME as BALUT
from domain.errors import DomainError
from domain.seam import Game, RecordFormat

_GAMES: dict[str, Game] = {}
_RECORD_FORMATS: dict[str, RecordFormat] = {}
# By name, in the order registered; read-only (``register`` adds): prefer ``get``, ``names`` and ``every``.
GAMES = MappingProxyType(_GAMES)
RECORD_FORMATS = MappingProxyType(_RECORD_FORMATS)


class UnknownGame(DomainError, KeyError):
    """A game name the platform does not run (a ``DomainError``: the API answers it as a refusal naming the
    rule ``unknown_game``)."""

    def __init__(self, name):
        super().__init__("unknown_game", f"no game {name!r} is played here (games: {', '.join(GAMES)})",
                         {"game": name, "games": list(GAMES)})

    __str__ = Exception.__str__


def register(game: Game) -> Game:
    """Adds ``game`` to the platform under ``game.info.name``. Refused (ValueError) when its name, record
    format, a stored event's tag or an action's tag is another registered game's: streams and requests hold
    every game's types side by side, told apart by those names only."""
    info = game.info
    if info.name in GAMES:
        raise ValueError(f"a game named {info.name!r} is registered already")
    if info.record.name in RECORD_FORMATS:
        raise ValueError(f"the record format {info.record.name!r} is another game's")
    taken = {_tag(t) for g in GAMES.values() for t in g.info.event_types}
    clash = sorted(taken & {_tag(t) for t in info.event_types})
    if clash:
        raise ValueError(f"{info.name}: stored events {clash} have another game's tags")
    if info.wire is not None:
        taken = {_tag(t) for g in GAMES.values() if g.info.wire is not None for t in g.info.wire.actions}
        clash = sorted(taken & {_tag(t) for t in info.wire.actions})
        if clash:
            raise ValueError(f"{info.name}: actions {clash} have another game's tags")
    _GAMES[info.name] = game
    _RECORD_FORMATS[info.record.name] = info.record
    return game


def _tag(struct: type) -> str:
    return struct.__struct_config__.tag


def get(name: str) -> Game:
    """The game named ``name``; ``UnknownGame`` (a refusal) when none is registered under it."""
    game = GAMES.get(name)
    if game is None:
        raise UnknownGame(name)
    return game


def names() -> tuple[str, ...]:
    return tuple(GAMES)


def every() -> tuple[Game, ...]:
    return tuple(GAMES.values())


register(BALOOT)
register(BALUT)
# The game of a table whose ``table_opened`` names none: every table stored before there were two games.
FIRST = BALOOT.info.name


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
