"""The expert bot (issue 51): its bidding model fitted on solved deals, its time per decision, and its strength
in duplicate against normal, hard and the all-seeing ceiling.

    python bench/expert.py --fit [--deals 3000] [--jobs 2]      # refit domain/baloot/bots/contract_model.py
    python bench/expert.py --timing [--timing-boards 12]         # expert's time per decision, one core
    python bench/expert.py --matches [--boards 1000] [--jobs 2]  # the duplicate matches of the closing note

**The fit.** ``--deals`` random deals (seeds ``fit:0`` …); on each, one buyer for a Sun and one for a Hokum
(half the time the seat whose normal-bot score for it is best, half a seat at random, so that both the hands
that buy and the others are seen), a Hokum in a suit the buyer holds two or more of, and on one deal in four an
Ashkal too; each contract solved exactly on the true deal from its first card (``solver.contract_value``: the
undealt cards as they lie). The margins are regressed on ``contract_model``'s features by least squares
(numpy); the coefficients, the fit's size and residual are written into ``contract_model.py``.

**The matches** (``baloot bots match``'s own code, ``services/cli/bots.py``): expert vs normal, expert vs hard,
ceiling vs normal, ceiling vs expert; and with one level bidding for all four seats (``--bidder normal``),
expert vs normal and ceiling vs normal, to split each gap into card play and bidding.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import pathlib
import random
import re
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import services  # noqa: E402,F401  (the compiled engine)
from domain.baloot import deal as deal_mod  # noqa: E402
from domain.baloot.bots import contract_model as cm  # noqa: E402
from domain.baloot.bots.simple import _hokum_score, _sun_score  # noqa: E402
from domain.baloot.cards import cards_of  # noqa: E402
from domain.baloot.dealstate import speaking_order  # noqa: E402
from domain.baloot.events import Contract, StartDeal  # noqa: E402
from domain.baloot.profiles import SAUDI  # noqa: E402
from domain.baloot.solver import contract_value  # noqa: E402

MODEL = pathlib.Path(__file__).resolve().parents[1] / "domain/baloot/bots/contract_model.py"


def fit_rows(i: int) -> list[tuple[str, list[float], float]]:
    """The solved contracts of fit deal ``i``: (kind, features, margin for the buyer's team)."""
    state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=i & 3, profile=SAUDI, seed=f"fit:{i}"))
    rng = random.Random(i)
    fu = state.deck[20]
    order = speaking_order(state.dealer)
    five = [cards_of(h) for h in state.first_five]
    solvers: dict = {}
    rows = []
    # Sun: the best Sun hand or a seat at random.
    seats = range(4)
    b = max(seats, key=lambda s: _sun_score(five[s] + [fu])) if rng.random() < 0.5 else rng.randrange(4)
    v = contract_value(state, Contract("sun", None, b), b, b, solvers)
    rows.append(("sun", cm.sun_features(five[b] + [fu], order.index(b)), v))
    if rng.random() < 0.25:
        a = rng.randrange(4)
        v = contract_value(state, Contract("sun", None, a, True), (a + 2) & 3, a, solvers)
        rows.append(("sun", cm.sun_features(five[a], order.index(a), fu), v))
    # Hokum: the best Hokum hand (in its best suit) or a seat at random in a suit it holds two of.
    options = [(s, t) for s in seats for t in range(4)
               if sum(c >> 3 == t for c in five[s] + [fu]) >= 2]
    if options:
        if rng.random() < 0.5:
            b, t = max(options, key=lambda o: _hokum_score(five[o[0]] + [fu], o[1]))
        else:
            b, t = rng.choice(options)
        v = contract_value(state, Contract("hokum", t, b), b, b, solvers)
        rows.append(("hokum", cm.hokum_features(five[b] + [fu], t, order.index(b)), v))
    return rows


def fit(deals: int, jobs: int) -> None:
    import numpy as np

    start = time.perf_counter()
    rows: list = []
    with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        for r in pool.map(fit_rows, range(deals), chunksize=20):
            rows.extend(r)
    coefficients, fitted = {}, {}
    for kind, names in (("sun", cm.SUN_FEATURES), ("hokum", cm.HOKUM_FEATURES)):
        x = np.array([f for k, f, _ in rows if k == kind])
        y = np.array([v for k, _, v in rows if k == kind])
        w, *_ = np.linalg.lstsq(x, y, rcond=None)
        residual = y - x @ w
        coefficients[kind] = tuple(round(float(c), 3) for c in w)
        fitted[kind] = {"rows": len(y), "mean": round(float(y.mean()), 2), "sd": round(float(y.std()), 2),
                        "residual_sd": round(float(residual.std()), 2)}
        print(f"{kind}: {len(y)} contracts, margin mean {y.mean():+.1f} sd {y.std():.1f}, "
              f"residual sd {residual.std():.1f}")
        for n, c in zip(names, w):
            print(f"  {n:>18} {c:+8.2f}")
    fitted.update(deals=deals, seeds="fit:0…", cpu_seconds=round(time.perf_counter() - start, 1), jobs=jobs)
    text = MODEL.read_text()
    block = ("COEFFICIENTS: dict[str, tuple[float, ...]] = {\n"
             + "".join(f"    {k!r}: {v!r},\n" for k, v in coefficients.items()) + "}\nFIT: dict = "
             + repr(fitted) + "\n")
    text = re.sub(r"COEFFICIENTS: dict\[str, tuple\[float, \.\.\.\]\] = \{.*\Z", block, text, flags=re.S)
    MODEL.write_text(text)
    print(f"written to {MODEL.relative_to(MODEL.parents[3])} ({time.perf_counter() - start:.0f} s)")


def timing(boards: int, seed: str) -> None:
    """The expert's CPU time per decision on one core, by kind of decision, over ``boards`` boards against
    normal in this process (``time.process_time``: what the decision costs, whatever else the machine runs)."""
    from domain.baloot.bots.expert import ExpertBot
    from domain.baloot.bots.match import play_board
    from domain.baloot.events import Bid, Double

    kinds: dict[str, list[float]] = {}
    searched: list[tuple[int, float]] = []          # (solver nodes, seconds) of the card decisions that solved
    choose = ExpertBot.choose

    def timed(self, v):
        self.nodes = 0
        t0 = time.process_time()
        out = choose(self, v)
        spent = time.process_time() - t0
        first = v.legal_actions[0]
        if self.nodes and type(first) not in (Bid, Double):
            searched.append((self.nodes, spent))
        kind = ("bid" if type(first) is Bid else "double" if type(first) is Double
                else "forced" if len(v.legal_actions) == 1 else f"card, trick {min(len(v.tricks) + 1, 3)}"
                + ("+" if len(v.tricks) >= 2 else ""))
        kinds.setdefault(kind, []).append(spent)
        return out

    ExpertBot.choose = timed
    try:
        for b in range(boards):
            play_board("expert", "normal", b, seed)
    finally:
        ExpertBot.choose = choose
    every = [x for xs in kinds.values() for x in xs]
    print("| decision | count | p50 ms | p95 ms | max ms | mean ms |")
    print("|---|---|---|---|---|---|")
    for kind, xs in sorted(kinds.items()) + [("every decision", every)]:
        s = sorted(xs)
        print(f"| {kind} | {len(s)} | {1000 * s[len(s) // 2]:.1f} | {1000 * s[int(0.95 * len(s))]:.1f} | "
              f"{1000 * s[-1]:.1f} | {1000 * sum(s) / len(s):.1f} |")
    if searched:
        nodes = sorted(n for n, _ in searched)
        print(f"solver nodes of a solved card decision: p50 {nodes[len(nodes) // 2]:,}, p95 "
              f"{nodes[int(0.95 * len(nodes))]:,}, max {nodes[-1]:,}; "
              f"{sum(nodes) / sum(t for _, t in searched):,.0f} nodes a second (the budget's unit in time)")


MATCHES = (  # (a, b, bidder): the closing note's matches
    ("expert", "normal", None), ("expert", "hard", None), ("ceiling", "normal", None), ("ceiling", "expert", None),
    ("expert", "normal", "normal"), ("ceiling", "normal", "normal"), ("hard", "normal", "normal"),
)


def matches(boards: int, ceiling_boards: int, jobs: int, seed: str, only: str | None) -> None:
    from domain.baloot.bots.match import summarize
    from services.cli.bots import render, run_match

    for a, b, bidder in MATCHES:
        name = f"{a}-{b}" + (f"-{bidder}-bids" if bidder else "")
        if only and only != name:
            continue
        n = ceiling_boards if "ceiling" in (a, b) else boards
        start = time.perf_counter()
        s = summarize(run_match(a, b, n, seed, jobs=jobs, bidder=bidder))
        what = "deals" + (f", {bidder} bidding for all four seats" if bidder else "")
        print(f"## {name}\n" + render(a, b, s, what) + f"\n({time.perf_counter() - start:.0f} s)\n", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--deals", type=int, default=3000)
    parser.add_argument("--timing", action="store_true")
    parser.add_argument("--timing-boards", type=int, default=12)
    parser.add_argument("--matches", action="store_true")
    parser.add_argument("--boards", type=int, default=1000)
    parser.add_argument("--ceiling-boards", type=int, default=1000)
    parser.add_argument("--only", default=None, help="one match by name, e.g. expert-normal, ceiling-normal-normal-bids")
    parser.add_argument("--seed", default="expert")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if args.fit:
        fit(args.deals, args.jobs)
    if args.timing:
        timing(args.timing_boards, args.seed + "-timing")
    if args.matches:
        matches(args.boards, args.ceiling_boards, args.jobs, args.seed, args.only)


if __name__ == "__main__":
    main()
