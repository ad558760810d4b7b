"""Whole Balut games played by bots: each turn thrown from ``"<game seed>:<turn number>"``, seeds revealed."""

from __future__ import annotations

from domain.balut.bots import bot
from domain.balut.events import StartBalut, StartTurn
from domain.balut.game import INITIAL, BalutState, step
from domain.balut.profiles import STC, BalutProfile
from domain.balut.views import view
from domain.events import RevealSeed


def turn_seed(game_seed: str, turn_no: int) -> str:
    return f"{game_seed}:{turn_no}"


def play_game(levels: list[str], game_seed: str, profile: BalutProfile = STC,
              first_player: int = 0) -> tuple[BalutState, list]:
    """Play one game, seat i played by the bot ``levels[i]``; the final state and every event."""
    bots = [bot(level) for level in levels]
    state, events = step(INITIAL, StartBalut(players=len(levels), first_player=first_player, profile=profile))
    while state.phase == "playing":
        seed = turn_seed(game_seed, state.turns)
        state, new = step(state, StartTurn(seed=seed))
        events.extend(new)
        while state.stage == "rolling":
            seat = state.turn
            state, new = step(state, bots[seat].choose(view(state, seat)))
            events.extend(new)
        state, new = step(state, RevealSeed(seed))
        events.extend(new)
    return state, events
