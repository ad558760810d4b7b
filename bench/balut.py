"""Balut bots: the strong bot against the simple one, mean final points with 95% intervals.

    python bench/balut.py [--games 10000] [--profile stc|ibf] [--seed bench]

Each game is two seats, strong and simple, the first player alternating; every turn is thrown from its own
committed seed (``<seed>-<game>:<turn>``) and revealed, as at a table. Printed: the mean final points of each
bot with a 95% interval (normal approximation), the mean paired difference with its interval, wins and
ties, and the time taken (figures only; nothing here is a pass/fail threshold).
"""

from __future__ import annotations

import argparse
import math
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from domain.balut.bots import open_set_tables  # noqa: E402
from domain.balut.profiles import PROFILES  # noqa: E402
from domain.balut.simulate import play_game  # noqa: E402


def interval(xs: list[float]) -> str:
    mean = statistics.fmean(xs)
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return f"{mean:8.2f} ± {half:.2f}  [{mean - half:.2f}, {mean + half:.2f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--profile", choices=sorted(PROFILES), default="stc")
    ap.add_argument("--seed", default="bench")
    args = ap.parse_args()
    profile = PROFILES[args.profile]

    start = time.perf_counter()
    open_set_tables(profile)
    tables = time.perf_counter() - start
    strong: list[int] = []
    simple: list[int] = []
    wins = ties = 0
    start = time.perf_counter()
    for g in range(args.games):
        levels = ["strong", "simple"] if g % 2 == 0 else ["simple", "strong"]    # who throws first alternates
        state, _ = play_game(levels, f"{args.seed}-{g}", profile, first_player=0)
        s_seat = levels.index("strong")
        strong.append(state.result.points[s_seat])
        simple.append(state.result.points[1 - s_seat])
        wins += strong[-1] > simple[-1]
        ties += strong[-1] == simple[-1]
    elapsed = time.perf_counter() - start
    diff = [a - b for a, b in zip(strong, simple)]
    n = args.games
    print(f"balut bench: {n} games, profile {args.profile}, seed {args.seed!r}")
    print(f"  strong tables built in {tables:.2f} s; games played in {elapsed:.1f} s ({n / elapsed:.0f} games/s)")
    print(f"  strong mean final points {interval(strong)}")
    print(f"  simple mean final points {interval(simple)}")
    print(f"  strong - simple (paired) {interval(diff)}")
    print(f"  strong wins {wins} ({100 * wins / n:.1f}%), ties {ties}, simple wins {n - wins - ties}")


if __name__ == "__main__":
    main()
