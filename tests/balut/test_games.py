"""The game seam (``domain.seam``): both games provide every part of it, and a game runs through it alone, as
the platform runs it: a table opened, its bots' turns decided from their seats' views (``bot_run``), its
stored log refolded with the private events re-derived, a ranked result."""

import dataclasses

import pytest

from domain.games import GAMES, RECORD_FORMATS
from domain.seam import Game, GameInfo, GameResult
from domain.table import TableOpened, TableState, bot_run, evolve

SEAM = [name for name in Game.__annotations__] + [
    name for name, value in vars(Game).items() if callable(value) and not name.startswith("_")]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_both_games_provide_the_whole_seam(name):
    game = GAMES[name]
    missing = [part for part in SEAM if not hasattr(game, part)]
    assert missing == [] and isinstance(game.info, GameInfo) and game.info.name == name
    assert {f.name for f in dataclasses.fields(game.info.record)} == {
        "name", "malformed", "parse", "audit", "render", "export", "encode", "schema"}


def test_record_formats_are_one_per_game():
    assert sorted(RECORD_FORMATS) == ["baloot-hand/1", "balut-game/1"]


def run(name: str, seats: int, seed: str, limit: int = 20000) -> tuple[TableState, list]:
    """A table of bots of ``name`` opened and played to the end through the table and the seam only."""
    def seed_of(n):
        return f"{seed}:{n}"

    game = GAMES[name]
    level = game.info.bot_levels[0]
    opened = TableOpened(table_id="seam", seats=tuple(f"bot-{i}" for i in range(seats)), game=name,
                         bots=(level,) * seats)
    events = [opened, *game.open(seats, 0, None, seed_of)]
    table = TableState()
    for e in events:
        table = evolve(table, e)
    for _ in range(limit):
        turns, table = bot_run(table, lambda lv, view: game.choose_from(lv, view), seed_of)
        if not turns:
            break
        events.extend(e for t in turns for e in t.events)
    return table, events


def refold(events, seed_of) -> TableState:
    """Fold only the stored events, re-deriving the private ones from the seeds as a server does on load."""
    table = TableState()
    for e in events:
        if getattr(e, "private", False):
            continue
        table = evolve(table, e)
        game = GAMES[table.opened.game] if table.opened else None
        if game is not None and type(e) is game.info.seeded_event:
            for p in game.private_events(table.game, e, seed_of):
                table = evolve(table, p)
    return table


@pytest.mark.parametrize("name, seats", [("balut", 3), ("baloot", 4)])
def test_a_game_runs_through_the_seam_and_its_stored_log_refolds(name, seats):
    game = GAMES[name]
    table, events = run(name, seats, "seam")
    result = game.result(table.game)
    assert isinstance(result, GameResult) and len(result.places) == seats and min(result.places) == 1
    assert set(result.winners) == {s for s in range(seats) if result.places[s] == 1}
    assert refold(events, lambda n: f"seam:{n}") == table
    with pytest.raises(ValueError, match="not the one committed to"):
        refold(events, lambda n: "another seed")


def test_the_card_games_result_ranks_the_winning_team_first():
    game = GAMES["baloot"]
    result = game.result(run("baloot", 4, "teams")[0].game)
    assert set(result.winners) in ({0, 2}, {1, 3})
    assert result.places == tuple(1 if s in result.winners else 2 for s in range(4))
