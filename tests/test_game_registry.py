"""The registry of games (``domain.games``): code outside the games reaches one by name (``get``), an unknown name
is a refusal naming its rule, and a game whose names would meet another's in a stream or a request (its name,
record format, a stored event's tag, an action's tag) is refused before it is added. The API's actions and
table views are the registered games' own. A game registered and played through the API:
tests/api/test_third_game.py."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from domain import games
from domain.errors import DomainError


def test_a_game_is_reached_by_its_name():
    assert games.names() == tuple(games.GAMES) == ("baloot", "balut")
    assert [g.info.name for g in games.every()] == list(games.names())
    assert all(games.get(name) is games.GAMES[name] for name in games.names())
    assert games.get(games.FIRST).info.name == "baloot"


def test_an_unknown_game_is_a_refusal_naming_its_rule():
    with pytest.raises(DomainError) as refused:
        games.get("chess")
    assert refused.value.rule == "unknown_game"
    assert refused.value.details == {"game": "chess", "games": ["baloot", "balut"]}
    assert "chess" in str(refused.value) and "baloot, balut" in str(refused.value)
    with pytest.raises(KeyError):              # where a lookup's miss was caught as a KeyError, it still is
        games.get("chess")


def test_the_registry_is_read_only_but_through_register():
    with pytest.raises(TypeError):
        games.GAMES["chess"] = games.get("balut")          # type: ignore[index]
    assert "chess" not in games.GAMES


class _Renamed:
    """A game like ``base`` but for what ``changes`` says of its ``GameInfo``."""

    def __init__(self, base, **changes):
        self.info = dataclasses.replace(base.info, **changes)


class OtherRecord:
    name = "other/1"


class Shout(msgspec.Struct, tag="shout"):
    pass


class Roll(msgspec.Struct, tag="roll"):        # the dice game's action tag
    pass


@pytest.mark.parametrize("changes, refusal", [
    ({}, "a game named 'balut' is registered already"),
    ({"name": "dice"}, "the record format 'balut-game/1' is another game's"),
    ({"name": "dice", "record": OtherRecord}, "stored events"),
])
def test_a_game_whose_names_meet_anothers_is_refused(changes, refusal):
    with pytest.raises(ValueError, match=refusal):
        games.register(_Renamed(games.get("balut"), **changes))
    assert games.names() == ("baloot", "balut")


def test_a_game_whose_action_meets_anothers_is_refused():
    balut = games.get("balut")
    started = msgspec.defstruct("DiceStarted", [], tag="dice_started")
    game = _Renamed(balut, name="dice", record=OtherRecord, event_types=(started,),
                    wire=dataclasses.replace(balut.info.wire, actions=(Shout, Roll)))
    with pytest.raises(ValueError, match=r"dice: actions \['roll'\] have another game's tags"):
        games.register(game)
    assert games.names() == ("baloot", "balut")


def test_the_apis_actions_and_views_are_the_games_own():
    """The API's union of actions and its table views are made from each game's wire, and the API's wire
    module imports no game: a game's actions and view reach the API through the seam only."""
    import ast
    import typing
    from pathlib import Path

    from services.api import schemas

    wires = {g.info.name: g.info.wire for g in games.every()}
    assert typing.get_args(schemas.PlayerAction) == tuple(a for w in wires.values() for a in w.actions)
    for name, view in schemas.TABLE_VIEWS.items():
        assert issubclass(view, wires[name].view) and view.__name__ == wires[name].table_view
        assert view.__struct_config__.tag == name
    assert typing.get_args(schemas.AnyTableView) == tuple(schemas.TABLE_VIEWS.values())
    source = (Path(__file__).resolve().parents[1] / "services" / "api" / "wire.py").read_text()
    imported = [n.module for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)]
    assert [m for m in imported if m.startswith(("domain.baloot", "domain.balut"))] == []
