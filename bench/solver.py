"""The perfect-information solver (domain/baloot/solver.py): its time per position and per deal, and what the
fair-play analysis of a deal costs with it.

    python bench/solver.py [--deals 40] [--seed bench-solver]

Deals are played by the normal bot. For every card chosen among several, the exact value of each legal card
(``card_values``, one solver kept per deal as the analysis keeps it) is timed against the baseline measured on
the same position in the same run: the hard bot's evaluation of the same cards on the same true hands (one
rollout each, what the analysis used as its truth before the solver). Then each deal is analysed as the
platform does (``analyse_deal``: the four seats, cards from their view and exactly, bids and doubles),
cards and calls timed apart. CPU seconds (``time.process_time``), compiled engine if built.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import services  # noqa: E402,F401  (the compiled engine's loader)
from domain.baloot.bots import bot  # noqa: E402
from domain.baloot.bots.hard import card_values as rollout_values  # noqa: E402
from domain.baloot.bots.knowledge import Knowledge  # noqa: E402
from domain.baloot.bots.simple import _plays  # noqa: E402
from domain.baloot.deal import INITIAL, step  # noqa: E402
from domain.baloot.events import RecordResult, StartDeal  # noqa: E402
from domain.baloot.fairplay import analyse_deal, play_deal  # noqa: E402
from domain.baloot.solver import card_values, solver_for  # noqa: E402
from domain.baloot.views import view  # noqa: E402
from services.compiled import loaded  # noqa: E402


def positions(seed: str, dealer: int):
    """Each state of a normal-bot deal where the seat to play has a choice of cards."""
    bots = [bot("normal") for _ in range(4)]
    state, _ = step(INITIAL, StartDeal(dealer=dealer, seed=seed))
    while state.phase not in ("scored", "void"):
        if state.phase == "playing" and len(_plays(view(state, state.turn))) > 1:
            yield state
        state, _ = step(state, RecordResult() if state.phase == "review" else bots[state.turn].choose(
            view(state, state.turn)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", default="bench-solver")
    args = parser.parse_args()
    print(f"compiled modules: {len(loaded())}; {args.deals} deals of normal bots")

    by_trick: dict[int, list[tuple[float, float]]] = {}
    per_deal = []
    for n in range(args.deals):
        seed = f"{args.seed}-{n}"
        solver = None
        deal_s = 0.0
        for state in positions(seed, n % 4):
            if solver is None:
                solver = solver_for(state)
            start = time.process_time()
            card_values(state, solver)
            exact = time.process_time() - start
            v = view(state, state.turn)
            start = time.process_time()
            rollout_values(v, Knowledge(v), _plays(v), [(state.hands, state.declared)])
            rollout = time.process_time() - start
            by_trick.setdefault(state.trick_no + 1, []).append((exact, rollout))
            deal_s += exact
        if solver is not None:
            per_deal.append(deal_s)

    print("\n| trick | positions | exact: mean ms | median | max | hard bot's rollout: mean ms | ratio |")
    print("|---|---|---|---|---|---|---|")
    for trick in sorted(by_trick):
        rows = by_trick[trick]
        e = [x for x, _ in rows]
        r = [y for _, y in rows]
        print(f"| {trick} | {len(rows)} | {1000 * statistics.mean(e):.1f} | {1000 * statistics.median(e):.1f} | "
              f"{1000 * max(e):.0f} | {1000 * statistics.mean(r):.2f} | ×{statistics.mean(e) / statistics.mean(r):.0f} |")
    print(f"\nexact values of every card choice of a deal (one solver a deal): mean {statistics.mean(per_deal):.2f} s, "
          f"median {statistics.median(per_deal):.2f} s, max {max(per_deal):.2f} s over {len(per_deal)} played deals")

    cards, calls = [], []
    bots = [bot("normal") for _ in range(4)]
    for n in range(args.deals):
        events = play_deal(f"{args.seed}-{n}", lambda s: bots[s.turn].choose(view(s, s.turn)), dealer=n % 4)
        start = time.process_time()
        analyse_deal(events, seed=n, kinds=("card",))
        cards.append(time.process_time() - start)
        start = time.process_time()
        analyse_deal(events, seed=n, kinds=("bid", "double"))
        calls.append(time.process_time() - start)
    total = statistics.mean(cards) + statistics.mean(calls)
    print(f"\nfair-play analysis of a deal (four seats, 16 samples): cards {statistics.mean(cards):.2f} s, bids and "
          f"doubles {statistics.mean(calls):.2f} s, together {total:.2f} s of CPU = {1 / total:.2f} deals/s a core")
    for minutes in (5, 8):
        rate = 5120 / (minutes * 60)
        print(f"a 5,120-table round at a deal every {minutes} min a table ends {rate:.1f} deals/s: "
              f"{rate * total:.0f} cores of analysis keep up")


if __name__ == "__main__":
    main()
