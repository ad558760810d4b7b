"""The game seam (domain/games.py): both games provide every part of it, and a game runs through it alone:
opened, played by its bots, its stored log refolded with the private events re-derived, a ranked result."""

import pytest

from domain.games import GAMES, RECORD_FORMATS, Game, GameResult

SEAM = [name for name in Game.__annotations__] + [
    name for name, value in vars(Game).items() if callable(value) and not name.startswith("_")]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_both_games_provide_the_whole_seam(name):
    game = GAMES[name]
    missing = [part for part in SEAM if not hasattr(game, part)]
    assert missing == [] and game.name == name
    assert set(vars(game.record)) >= {"name", "malformed", "parse", "audit", "render", "export", "encode",
                                      "schema"}


def test_record_formats_are_one_per_game():
    assert sorted(RECORD_FORMATS) == ["baloot-hand/1", "balut-game/1"]


def run(game, seats: int, seed: str, limit: int = 20000):
    """Open a game and let the bots play it through the seam only; the final state and the events."""
    def seed_of(n):
        return f"{seed}:{n}"

    events = game.open(seats, 0, None, seed_of)
    state = game.fold(events)
    level = game.bot_levels[0]
    for _ in range(limit):
        if game.result(state) is not None:
            break
        seat = next(s for s in range(seats) if game.legal_actions(state, s))
        new = game.follow_ups(state, game.step(state, game.choose(level, state, seat))[1], seed_of)
        state = game.fold(new, state)
        events.extend(new)
    return state, events


def refold(game, events, seed_of):
    """Fold only the stored events, re-deriving the private ones from the seeds as a server does on load."""
    state = game.initial
    for e in events:
        if not e.private:
            state = game.fold([e], state)
            state = game.fold(game.private_events(state, e, seed_of), state)
    return state


@pytest.mark.parametrize("name, seats", [("balut", 3), ("baloot", 4)])
def test_a_game_runs_through_the_seam_and_its_stored_log_refolds(name, seats):
    game = GAMES[name]
    state, events = run(game, seats, "seam")
    result = game.result(state)
    assert isinstance(result, GameResult) and len(result.places) == seats and min(result.places) == 1
    assert set(result.winners) == {s for s in range(seats) if result.places[s] == 1}
    assert refold(game, events, lambda n: f"seam:{n}") == state
    with pytest.raises(ValueError, match="not the one committed to"):
        refold(game, events, lambda n: "another seed")


def test_the_card_games_result_ranks_the_winning_team_first():
    game = GAMES["baloot"]
    result = game.result(run(game, 4, "teams")[0])
    assert set(result.winners) in ({0, 2}, {1, 3})
    assert result.places == tuple(1 if s in result.winners else 2 for s in range(4))
