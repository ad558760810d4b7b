"""Whole Balut games played by bots, run as a table runs them: each move's follow-ups (reveal the turn's
seed, start the next turn from ``"<game seed>:<turn number>"``) come from ``game.follow_ups``."""

from __future__ import annotations

from domain.balut.bots import bot
from domain.balut.events import StartBalut
from domain.balut.game import INITIAL, BalutState, decide, follow_ups, fold
from domain.balut.profiles import STC, BalutProfile
from domain.balut.views import view


def turn_seed(game_seed: str, turn_no: int) -> str:
    return f"{game_seed}:{turn_no}"


def play_game(levels: list[str], game_seed: str, profile: BalutProfile = STC,
              first_player: int = 0) -> tuple[BalutState, list]:
    """Play one game, seat i played by the bot ``levels[i]``; the final state and every event."""
    bots = [bot(level) for level in levels]

    def seed_of(n: int) -> str:
        return turn_seed(game_seed, n)

    start = StartBalut(players=len(levels), first_player=first_player, profile=profile)
    events = follow_ups(INITIAL, decide(INITIAL, start), seed_of)
    state = fold(events)
    while state.phase == "playing":
        seat = state.turn
        new = follow_ups(state, decide(state, bots[seat].choose(view(state, seat))), seed_of)
        state = fold(new, state)
        events.extend(new)
    return state, events
