"""The evaluation bar (domain/baloot/evaluation.py): its CPU time per position and per deal, hands open and
from the spectator's view, against the hard bot's decision time on the same positions, and how many live
tables one core can follow.

    python bench/evaluation.py [--deals 20] [--seed bench-evaluation] [--samples 16 8]

Deals are played by the normal bot. Each deal is evaluated as a live table's bar would be, position after
position with one ``solvers`` dict for the deal (``deal_curve``'s positions: the contract, each raise, each
declaration, each card): hands open (one exact solve of the true hands, reused), and public with each
``--samples`` (every position sampled anew from the spectator's view and each sample solved). The baseline,
measured in the same run on the same positions: the hard bot's decision (``HardBot().choose``, its default
48 samples) at every position where a seat is to play a card. A table dealing every 5 to 8 minutes needs the
deal's CPU once per interval: one core follows interval / CPU per deal tables. CPU seconds
(``time.process_time``), compiled engine if built.
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
from domain.baloot.bots.hard import HardBot  # noqa: E402
from domain.baloot.deal import INITIAL, evolve  # noqa: E402
from domain.baloot.evaluation import _MOVES, evaluate  # noqa: E402
from domain.baloot.events import DoubleCalled  # noqa: E402
from domain.baloot.fairplay import play_deal  # noqa: E402
from domain.baloot.views import view  # noqa: E402
from services.compiled import loaded  # noqa: E402


def positions(events) -> list:
    """The states after each event of the deal where the bar may move (as ``deal_curve`` takes them), while
    the deal is in doubling or play (the result after the last card costs nothing)."""
    state, out = INITIAL, []
    for event in events:
        before = state.contract
        state = evolve(state, event)
        if (isinstance(event, _MOVES) or (isinstance(event, DoubleCalled) and state.contract != before)) \
                and state.phase in ("doubling", "playing"):
            out.append(state)
    return out


def timed_deal(states, **kwargs) -> list[float]:
    """CPU seconds of each position's evaluation, one ``solvers`` for the deal, in order."""
    solvers: dict = {}
    out = []
    for s in states:
        start = time.process_time()
        evaluate(s, solvers=solvers, **kwargs)
        out.append(time.process_time() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--seed", default="bench-evaluation")
    parser.add_argument("--samples", type=int, nargs="+", default=[16, 8])
    args = parser.parse_args()
    print(f"compiled modules: {len(loaded())}; {args.deals} deals of normal bots; public samples {args.samples}")

    modes = [("hands open", dict(hands_open=True))] + [
        (f"public, {n} samples", dict(hands_open=False, samples=n, seed=1)) for n in args.samples]
    per_position: dict[str, list[float]] = {m: [] for m, _ in modes}
    first: dict[str, list[float]] = {m: [] for m, _ in modes}
    per_deal: dict[str, list[float]] = {m: [] for m, _ in modes}
    hard_position: list[float] = []
    hard_deal: list[float] = []
    counts = []
    bots = [bot("normal") for _ in range(4)]
    hard = HardBot()
    evaluated = 0
    n = 0
    while evaluated < args.deals:
        events = play_deal(f"{args.seed}-{n}", lambda s: bots[s.turn].choose(view(s, s.turn)), dealer=n % 4)
        n += 1
        states = positions(events)
        if not states:
            continue                                   # a void deal: nothing to evaluate
        evaluated += 1
        counts.append(len(states))
        for name, kwargs in modes:
            times = timed_deal(states, **kwargs)
            per_position[name] += times
            first[name].append(times[0])
            per_deal[name].append(sum(times))
        deal_s = 0.0
        for s in states:
            if s.phase != "playing":
                continue
            v = view(s, s.turn)
            start = time.process_time()
            hard.choose(v)
            t = time.process_time() - start
            hard_position.append(t)
            deal_s += t
        hard_deal.append(deal_s)
        print(f"  deal {evaluated}: {len(states)} positions; " + ", ".join(
            f"{m} {per_deal[m][-1]:.2f} s" for m, _ in modes) + f"; hard bot {deal_s:.2f} s", flush=True)

    hp, hd = statistics.mean(hard_position), statistics.mean(hard_deal)
    print(f"\n{len(counts)} deals, {statistics.mean(counts):.1f} positions a deal (contract, raises, declarations, "
          f"cards); baseline: the hard bot's decision {1000 * hp:.1f} ms a card position, {hd:.2f} s a deal")
    print("\n| mode | per position: mean ms | median | max | first position (the deal's solve): mean ms | "
          "per deal: mean s | max | × hard bot (per position) | tables a core follows at 5 / 8 min a deal |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, _ in modes:
        p, d = per_position[name], per_deal[name]
        cpu = statistics.mean(d)
        print(f"| {name} | {1000 * statistics.mean(p):.1f} | {1000 * statistics.median(p):.1f} | "
              f"{1000 * max(p):.0f} | {1000 * statistics.mean(first[name]):.0f} | {cpu:.2f} | {max(d):.2f} | "
              f"×{statistics.mean(p) / hp:.2f} | {300 / cpu:.0f} / {480 / cpu:.0f} |")
    print(f"| (baseline) hard bot's decision | {1000 * hp:.1f} | {1000 * statistics.median(hard_position):.1f} | "
          f"{1000 * max(hard_position):.0f} | | {hd:.2f} | {max(hard_deal):.2f} | ×1 | |")
    print("\nTables a core follows: (seconds between deals) / (CPU seconds a deal's bar needs), the bar evaluated "
          "after every event that may move it; a core also runs the table's bots and server.")


if __name__ == "__main__":
    main()
