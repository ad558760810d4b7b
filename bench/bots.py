"""Bot strength in duplicate matches and the hard bot's time per decision: the targets of the bots' levels.

    python bench/bots.py [--boards 2000] [--easy-boards 2000] [--timing-boards 40] [--jobs 1] [--seed bench]

1. hard vs normal and normal vs easy, ``--boards`` boards each (a deal from a seed, played twice with the
   teams swapped): mean GP margin per board (both tables added) with its 95% interval, share of boards won;
2. the hard bot's time per decision on one core (p50, p95, max), from a separate run of ``--timing-boards``
   boards in this process alone (the match runs may share the cores with their own processes).

| measure | issue minimum | goal |
|---|---|---|
| hard vs normal, mean GP margin per board, 2,000 boards | 95% interval above 0 | > +3 GP per board |
| normal vs easy, same | 95% interval above 0 | — |
| hard p95 time per decision, one core | < 250 ms | < 100 ms |
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from domain.baloot.bots.match import summarize  # noqa: E402
from services.cli.bots import render, run_match  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=2000, help="boards of hard vs normal")
    parser.add_argument("--easy-boards", type=int, default=2000, help="boards of normal vs easy")
    parser.add_argument("--timing-boards", type=int, default=40, help="boards timed on one core")
    parser.add_argument("--jobs", type=int, default=1, help="processes for the matches")
    parser.add_argument("--seed", default="bench")
    args = parser.parse_args()

    rows = []
    for a, b, n in (("hard", "normal", args.boards), ("normal", "easy", args.easy_boards)):
        if n <= 0:
            continue
        start = time.perf_counter()
        s = summarize(run_match(a, b, n, args.seed, jobs=args.jobs))
        print(render(a, b, s, "deals"), f"\n({time.perf_counter() - start:.0f} s)\n", flush=True)
        verdict = "met" if s.low > 0 else "NOT met"
        goal = "" if a != "hard" else (" (goal > +3: met)" if s.mean > 3 else " (goal > +3: not met)")
        rows.append((f"{a} vs {b}, mean GP margin per board, {n} boards",
                     f"{s.mean:+.2f} [{s.low:+.2f}, {s.high:+.2f}], won {100 * s.won:.0f}%",
                     f"interval above 0: {verdict}{goal}"))
    if args.timing_boards > 0:
        t = summarize(run_match("hard", "normal", args.timing_boards, args.seed + "-timing", jobs=1)).times["hard"]
        p50, p95, top, n = t
        verdict = "goal met" if p95 < 0.1 else "minimum met" if p95 < 0.25 else "NOT met"
        rows.append((f"hard time per decision, one core ({n} decisions)",
                     f"p50 {1000 * p50:.1f} ms, p95 {1000 * p95:.1f} ms, max {1000 * top:.1f} ms", verdict))
    print("| measure | measured | target |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
