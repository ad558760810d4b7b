"""Deal reviews (domain/baloot/review.py): how the marks fall on honest players of each strength — the data the
marks' thresholds were chosen from, and the check that they tell strengths apart — and what a review costs.

    python bench/review.py [--deals 12] [--seed bench-review] [--kinds card] [--samples 8]

Each deal is played by four bots of one level (easy, normal, hard), and by our hard bot in seat 0 against
three of another engine's style (the test populations' heuristic player, bench/fairplay_players.py, built
with no part of the review), then analysed as the platform's analysers do (``analyse_deal``, 16 samples, the
kinds given) and reviewed two ways: by the analysis' rollouts (the hard bot's play-outs of 16 samples of the
hidden cards) and by the review's own values (the analysers' ``review_values``: ``--samples`` samples, each
solved exactly), which the platform's reviews use. A review that means something marks weaker players more.

Printed: for each level and way, the share of choices unmarked and marked, and the costs' quantiles; then CPU
seconds (``time.process_time``) a deal for the analysis, the review's values and the review made from stored
values, against a baseline measured in the same run: folding the deal's events (``deal.fold``).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import services  # noqa: E402,F401  (the compiled engine's loader)
from domain.baloot import deal as deal_mod  # noqa: E402
from domain.baloot.bots import bot  # noqa: E402
from domain.baloot.fairplay import analyse_deal, play_deal, planted  # noqa: E402
from domain.baloot.review import MARKS, review  # noqa: E402
from services.compiled import loaded  # noqa: E402
from services.fairplay.analyser import review_values  # noqa: E402


def players(level: str):
    """``choose(state)`` for the level's four seats, and the seats reviewed."""
    if level == "hard-vs-heuristic":
        from bench.fairplay_players import player
        hard, other = planted([bot("hard")] * 4, {}), player("heuristic")
        return (lambda state: hard(state) if state.turn == 0 else other(state)), (0, 1, 2, 3)
    return planted([bot(level) for _ in range(4)], {}), (0, 1, 2, 3)


def quantiles(xs: list[float]) -> str:
    if len(xs) < 2:
        return "-"
    q = statistics.quantiles(xs, n=20, method="inclusive")
    return f"p50 {q[9]:.2f}  p90 {q[17]:.2f}  p95 {q[18]:.2f}  max {max(xs):.2f}"


def line(name: str, reviewed) -> str:
    marks = [r.mark for r in reviewed]
    n = len(marks) or 1
    share = {m: marks.count(m) / n for m, _ in MARKS}
    return (f"{name:<28} {len(marks):>7} {marks.count('') / n:>9.1%} {share['inaccuracy']:>7.1%} "
            f"{share['mistake']:>8.1%} {share['blunder']:>8.1%}   {quantiles([r.cost for r in reviewed])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=12)
    ap.add_argument("--seed", default="bench-review")
    ap.add_argument("--kinds", default="card")
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--levels", default="easy,normal,hard,hard-vs-heuristic")
    args = ap.parse_args()
    kinds = tuple(args.kinds.split(","))
    print(f"compiled engine: {'yes' if loaded() else 'no (pure Python)'}; {args.deals} deals a level; kinds {kinds}; "
          f"review values: {args.samples} samples, each solved")
    analysis, valuing, reviewing, folding = [], [], [], []
    print(f"{'level / values':<28} {'choices':>7} {'unmarked':>9} {'inacc.':>7} {'mistake':>8} {'blunder':>8}   cost (GP)")
    for level in args.levels.split(","):
        by_rollouts, by_solving, seat0 = [], [], []
        for n in range(args.deals):
            choose, judged = players(level)
            events = play_deal(f"{args.seed}-{level}-{n}", choose, dealer=n % 4)
            t0 = time.process_time()
            decisions = analyse_deal(events, seed=1, samples=16, kinds=kinds, seats=judged)
            t1 = time.process_time()
            values = review_values(events, 1, args.samples, kinds)
            t2 = time.process_time()
            reviewed = review(events, decisions, values=values)
            t3 = time.process_time()
            deal_mod.fold(events)
            t4 = time.process_time()
            analysis.append(t1 - t0)
            valuing.append(t2 - t1)
            reviewing.append(t3 - t2)
            folding.append(t4 - t3)
            by_rollouts += review(events, decisions)
            by_solving += reviewed
            seat0 += [r for r in reviewed if r.seat == 0]
        print(line(f"{level} / rollouts", by_rollouts))
        print(line(f"{level} / solved", by_solving))
        if level == "hard-vs-heuristic":
            print(line("  hard seat 0 / solved", seat0))
            print(line("  heuristic seats / solved", [r for r in by_solving if r.seat]))
    fold = statistics.mean(folding)
    print(f"\nCPU a deal (four seats): fair-play analysis {statistics.mean(analysis):.2f} s; the review's values "
          f"{statistics.mean(valuing):.2f} s (p95 {statistics.quantiles(valuing, n=20)[18]:.2f}, max "
          f"{max(valuing):.2f}); the review from stored values {statistics.mean(reviewing) * 1000:.2f} ms; "
          f"baseline: the deal's fold {fold * 1000:.2f} ms (values ×{statistics.mean(valuing) / fold:,.0f}, "
          f"review ×{statistics.mean(reviewing) / fold:.1f})")
    print(f"one core: {3600 / statistics.mean(valuing):,.0f} deals' review values an hour; "
          f"{1 / statistics.mean(reviewing):,.0f} reviews a second from stored values")


if __name__ == "__main__":
    main()
