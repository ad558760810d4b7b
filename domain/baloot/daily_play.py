"""A day's boards played in memory: bots for the three other seats and a simulated player in seat 0 (the
benchmark's and ``baloot daily simulate``'s entries). Pure: the player's choices come from an explicit seed."""

from __future__ import annotations

import random

from domain.baloot import deal as deal_mod
from domain.baloot.bots import bot
from domain.baloot.daily import Board
from domain.baloot.events import RecordResult, StartDeal
from domain.baloot.profiles import SAUDI, RuleProfile
from domain.baloot.views import view


class SimulatedPlayer:
    """Plays as the ``level`` bot, except that with probability ``slips`` it plays a random legal action."""

    def __init__(self, level: str, seed: str, slips: float = 0.15):
        self.bot, self.rng, self.slips = bot(level), random.Random(seed), slips

    def choose(self, v):
        if self.rng.random() < self.slips:
            return self.rng.choice(v.legal_actions)
        return self.bot.choose(v)


def play_board(board: Board, player, level: str, profile: RuleProfile = SAUDI) -> tuple[int, int]:
    """The game points of ``board`` played to its end, ``player`` in seat 0 and ``level`` bots elsewhere."""
    return play_seats(board, [player, bot(level), bot(level), bot(level)], profile)


def play_seats(board: Board, seats, profile: RuleProfile = SAUDI) -> tuple[int, int]:
    """The game points of ``board`` played to its end by ``seats`` (anything with ``choose(view)``)."""
    state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=board.dealer, profile=profile, seed=board.seed))
    while state.phase not in ("scored", "void"):
        cmd = RecordResult() if state.phase == "review" else seats[state.turn].choose(view(state, state.turn))
        state, _ = deal_mod.step(state, cmd)
    return tuple(state.result.game_points) if state.phase == "scored" else (0, 0)
