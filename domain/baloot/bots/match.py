"""Duplicate matches between two bot levels: every board is played twice with the teams swapping seats.

A board is a deal from a seed (``--games``: a whole game, its deals from the board's seed). At the first
table level ``a`` holds seats 0 and 2; at the second the same cards are dealt with ``b`` in those seats, so
each level plays both sides of the same cards and the luck of the deal cancels out. A board's margin is
``a``'s GP minus ``b``'s, added over the two tables. Nothing here reads a clock: the caller may pass
``clock`` (a function returning seconds) to time each decision.
"""

from __future__ import annotations

import math
import statistics
from typing import Callable

import msgspec

from domain.baloot import deal as deal_mod
from domain.baloot import game as game_mod
from domain.baloot.bots import bot
from domain.baloot.events import DealNext, RecordResult, StartDeal, StartGame
from domain.events import RevealSeed
from domain.baloot.profiles import SAUDI, RuleProfile
from domain.baloot.views import view

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


def play_board(a: str, b: str, board: int, seed: str, *, games: bool = False, profile: RuleProfile = SAUDI,
               clock: Callable[[], float] | None = None) -> BoardResult:
    times: dict[str, list[float]] = {a: [], b: []} if clock else {}
    margins = []
    for swap in (False, True):
        levels = (b, a) if swap else (a, b)
        seats = [(levels[s & 1], bot(levels[s & 1])) for s in range(4)]
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
            level, player = seats[seat]
            v = view(deal, seat)
            if clock is None:
                cmd = player.choose(v)
            else:
                t0 = clock()
                cmd = player.choose(v)
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
