"""Duplicate matches between two bot levels: every board is played twice with the teams swapping seats.

A board is a deal from a seed (``--games``: a whole game, its deals from the board's seed). At the first
table level ``a`` holds seats 0 and 2; at the second the same cards are dealt with ``b`` in those seats, so
each level plays both sides of the same cards and the luck of the deal cancels out. A board's margin is
``a``'s GP minus ``b``'s, added over the two tables. Nothing here reads a clock: the caller may pass
``clock`` (a function returning seconds) to time each decision.

A side may also be the all-seeing ceiling (``ceiling``: ``expert.CeilingBot``, handed the deal's whole state
instead of a view), and ``bidder`` may bid and double for all four seats, so that a board measures the
levels' card play alone.
"""

from __future__ import annotations

import math
import statistics
from typing import Callable

import msgspec

from domain.baloot import deal as deal_mod
from domain.baloot import game as game_mod
from domain.baloot.bots import bot
from domain.baloot.bots.expert import CeilingBot
from domain.baloot.events import Bid, DealNext, Double, RecordResult, StartDeal, StartGame
from domain.events import RevealSeed
from domain.baloot.profiles import SAUDI, RuleProfile
from domain.baloot.views import view

CEILING = "ceiling"  # the all-seeing player: no level of the tables, a measure of what seeing every card is worth
MAX_DEALS = 200      # a game that has not ended after this many deals stops there (void deals can repeat)


class BoardResult(msgspec.Struct, frozen=True):
    board: int
    margin: int                          # a's GP minus b's over both tables
    margins: tuple[int, int]             # at each table
    times: dict[str, list[float]]        # seconds per decision, by level (empty without a clock)


class Summary(msgspec.Struct, frozen=True):
    boards: int
    mean: float                          # mean margin per board (a minus b)
    low: float                           # its 95% confidence interval (normal approximation)
    high: float
    won: float                           # share of boards a won (margin > 0)
    tied: float
    times: dict[str, tuple[float, float, float, int]]   # level -> (p50, p95, max) seconds, decisions


def player(level: str):
    """A level's bot, or the all-seeing ceiling (``expert.CeilingBot``: it reads the whole deal)."""
    return CeilingBot() if level == CEILING else bot(level)


class _Bidder:
    """A seat whose bids and doubles are ``bidder``'s and whose cards are ``player``'s (``bidder``: the
    level that bids for both sides, so that a match measures the card play alone)."""

    def __init__(self, player, bidder):
        self.player, self.bidder = player, bidder
        self.sees_all = getattr(player, "sees_all", False) or getattr(bidder, "sees_all", False)

    def _by(self, actions):
        return self.bidder if type(actions[0]) in (Bid, Double) else self.player

    def choose(self, v):
        return self._by(v.legal_actions).choose(v)

    def choose_seeing(self, state):
        v = view(state, state.turn)
        who = self._by(v.legal_actions)
        return who.choose_seeing(state) if getattr(who, "sees_all", False) else who.choose(v)


def play_board(a: str, b: str, board: int, seed: str, *, games: bool = False, profile: RuleProfile = SAUDI,
               clock: Callable[[], float] | None = None, bidder: str | None = None) -> BoardResult:
    """Board ``board`` played twice, ``a`` against ``b`` (see the module's docstring); ``bidder``: a level
    that bids and doubles for all four seats (the levels then differ in their card play only)."""
    times: dict[str, list[float]] = {a: [], b: []} if clock else {}
    margins = []
    for swap in (False, True):
        levels = (b, a) if swap else (a, b)
        seats = [(levels[s & 1], player(levels[s & 1]) if bidder is None
                  else _Bidder(player(levels[s & 1]), player(bidder))) for s in range(4)]
        a_team = 1 if swap else 0
        board_seed = f"{seed}:{board}"
        if games:
            scores = _play_game(seats, board, board_seed, profile, times, clock)
        else:
            start = StartDeal(dealer=board & 3, profile=profile, seed=board_seed)
            state, _ = deal_mod.step(deal_mod.INITIAL, start)
            scores = _play_deal(state, seats, times, clock).result.game_points
        margins.append(scores[a_team] - scores[1 - a_team])
    return BoardResult(board, margins[0] + margins[1], (margins[0], margins[1]), times)


def _play_deal(state: deal_mod.DealState, seats, times, clock, apply=None) -> deal_mod.DealState:
    """Play the deal in ``state`` to its end (``apply(cmd)`` steps a game around it when given)."""
    deal = state if apply is None else state.deal
    while deal.phase not in ("scored", "void"):
        if deal.phase == "review":
            cmd = RecordResult()
        else:
            seat = deal.turn
            level, who = seats[seat]
            if getattr(who, "sees_all", False):
                choose, arg = who.choose_seeing, deal
            else:
                choose, arg = who.choose, view(deal, seat)
            if clock is None:
                cmd = choose(arg)
            else:
                t0 = clock()
                cmd = choose(arg)
                times[level].append(clock() - t0)
        if apply is None:
            state, _ = deal_mod.step(state, cmd)
            deal = state
        else:
            state = apply(cmd)
            deal = state.deal
    return state


def _play_game(seats, board, board_seed, profile, times, clock) -> tuple[int, int]:
    state = game_mod.INITIAL

    def apply(cmd):
        nonlocal state
        state, _ = game_mod.step(state, cmd)
        return state

    apply(StartGame(first_dealer=board & 3, profile=profile))
    for n in range(MAX_DEALS):
        deal_seed = f"{board_seed}:{n}"
        apply(DealNext(seed=deal_seed))
        _play_deal(state, seats, times, clock, apply)
        apply(RevealSeed(deal_seed))
        if state.phase == "ended":
            break
    return state.scores


def summarize(results: list[BoardResult]) -> Summary:
    margins = [r.margin for r in results]
    n = len(margins)
    mean = statistics.fmean(margins) if n else 0.0
    half = 1.96 * statistics.stdev(margins) / math.sqrt(n) if n > 1 else math.inf
    times: dict[str, list[float]] = {}
    for r in results:
        for level, ts in r.times.items():
            times.setdefault(level, []).extend(ts)
    return Summary(
        boards=n, mean=mean, low=mean - half, high=mean + half,
        won=sum(m > 0 for m in margins) / n if n else 0.0, tied=sum(m == 0 for m in margins) / n if n else 0.0,
        times={level: (_quantile(ts, 0.5), _quantile(ts, 0.95), max(ts, default=0.0), len(ts))
               for level, ts in times.items()})


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]
