"""Card values from the player's view, sampled and solved (domain/baloot/viewvalues.py), against the fair-play
analysis' card part (its rollouts from the same view and the exact values on the true hands, the review's
source today): CPU per decision by trick and per deal, and how far the two valuations differ.

    python bench/viewvalues.py [--deals 12] [--seed bench-viewvalues] [--samples 4 8 16] [--honest 16]
    python bench/viewvalues.py --calls [--deals 8] [--samples 4 8] [--honest 16]

``--calls`` measures the bids and doubles instead (``view_call_values``; the analysis' ``bid_choices`` /
``double_choices``, its honest rollouts, as the baseline): CPU per bid and per double decision and per deal,
how often the solved best call differs from the rollouts' honest best, and what each one's best gives up on
the true deal (``Decision.true``).

Figures of ``--calls`` (defaults: 8 deals of normal bots, 64 decisions: 56 bids, 8 doubles; compiled, one core
of a shared 2-core machine): the analysis' calls (rollouts at 16, the exact true values and the partner variant)
302 ms a bid, 165 ms a double, 2.28 s a deal; solved at 4 samples 1935 / 986 ms, 14.5 s a deal (x6.4, max
24.4 s); at 8, 4070 / 1874 ms, 30.4 s a deal (x13.3, max 46.5 s). The best call differs from the rollouts'
honest best on 33 / 36 % of the decisions (4 / 8 samples); the best gives up 8.42 GP on the true deal by the
rollouts against 8.97 / 6.72 solved (a true best 48 % against 50 / 52 %); where Sun is open it is the best on
4 % of the bids by the rollouts, 21 / 16 % solved, 25 % on the true deal. Few deals: noisy.

Deals are played by the normal bot (void deals skipped). Every card a seat chose among several (the decisions
of ``analyse_deal(kinds=("card",))``, four seats) is valued by ``view_card_values`` at each ``--samples`` (one
``solvers`` dict a deal, as ``view_values`` keeps it), and by the analysis' own ``_decision`` (the baseline,
measured in the same run: ``--honest`` rollout samples, the partner variant and the exact values, as the
analysers run it). Then, per sample count: how often the best card by the solved values differs from the
rollouts' honest best; the mean |difference| of the played card's cost (best − played, GP) between the two;
and what each one's best card costs on the true hands (true best − true value of its best; 0 = the true
best). CPU seconds (``time.process_time``), compiled engine if built.

Figures (defaults, compiled, one core of a shared 2-core machine; 12 deals, 250 card decisions): the analysis'
card part 169 / 35 / 4.4 ms a decision at tricks 1 / 2 / 3+, 0.69 s a deal; solved at 4 samples 664 / 189 / 11
ms (×3.9 / ×5.5 / ×2.6), 2.79 s a deal (×4.0); at 8, 1497 / 383 / 22 ms, 6.12 s a deal (×8.8, max 11.2 s); at
16, 3127 / 764 / 44 ms, 12.64 s a deal (×18.3, max 27.5 s). The best cards differ on 16 / 18 / 20 % of the
decisions (4 / 8 / 16 samples), the played card's cost by 0.89 / 0.66 / 0.61 GP on average; the solved best
gives up 0.35 / 0.37 / 0.33 GP on the true hands against the rollouts' 0.65 (a true best 95 / 94 / 95 % of the
time against 90 %).
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
from domain.baloot.bots.simple import _plays  # noqa: E402
from domain.baloot.deal import INITIAL, evolve  # noqa: E402
from domain.baloot.events import CardPlayed  # noqa: E402
from domain.baloot.fairplay import _decision, analyse_deal, deal_seed, play_deal  # noqa: E402
from domain.baloot.views import view  # noqa: E402
from domain.baloot.viewvalues import view_bid_values, view_card_values, view_double_values  # noqa: E402
from services.compiled import loaded  # noqa: E402

BUCKETS = ("trick 1", "trick 2", "trick 3+")


def bucket(trick_no: int) -> str:
    return BUCKETS[min(trick_no, 2)]


def decisions(events) -> list:
    """(index, event, state before) of every card chosen among several, four seats (``analyse_deal``'s)."""
    state, out = INITIAL, []
    for index, event in enumerate(events):
        if isinstance(event, CardPlayed) and state.phase == "playing" and len(_plays(view(state, event.seat))) > 1:
            out.append((index, event, state))
        state = evolve(state, event)
    return out


def call_states(events) -> dict:
    """index → the state before each bid or double of the deal's events."""
    from domain.baloot.events import BidMade, DoubleCalled
    state, out = INITIAL, {}
    for index, event in enumerate(events):
        if (isinstance(event, BidMade) and state.phase == "bidding"
                or isinstance(event, DoubleCalled) and state.phase == "doubling"):
            out[index] = state
        state = evolve(state, event)
    return out


def calls(args) -> None:
    """The bids and doubles: the analysis' (rollouts and the true deal) against the solved values."""
    print(f"compiled modules: {sum(loaded().values())}; {args.deals} deals of normal bots; bids and doubles; "
          f"solved samples {args.samples}; baseline: the analysis' calls at {args.honest} rollout samples")
    modes = ["analysis"] + [f"solved {n}" for n in args.samples]
    per_kind = {m: {"bid": [], "double": []} for m in modes}
    per_deal = {m: [] for m in modes}
    compare = {n: {"n": 0, "differ": 0, "honest_true_cost": [], "solved_true_cost": [], "sun_h": 0, "sun_s": 0,
                   "sun_t": 0, "bids": 0} for n in args.samples}
    bots = [bot("normal") for _ in range(4)]
    done = n = 0
    while done < args.deals:
        events = play_deal(f"{args.seed}-{n}", lambda s: bots[s.turn].choose(view(s, s.turn)), dealer=n % 4)
        n += 1
        start = time.process_time()
        decisions = analyse_deal(events, seed=1, samples=args.honest, kinds=("bid", "double"))
        total = time.process_time() - start
        if not decisions:
            continue
        done += 1
        for d in decisions:                 # the analysis' time shared evenly (it values a deal's calls at once)
            per_kind["analysis"][d.kind].append(total / len(decisions))
        per_deal["analysis"].append(total)
        states = call_states(events)
        line = [f"analysis {total:.2f} s"]
        for samples in args.samples:
            name, total, c = f"solved {samples}", 0.0, compare[samples]
            for d in decisions:
                state = states[d.index]
                start = time.process_time()
                values = [x for _, x in (view_bid_values if d.kind == "bid" else view_double_values)(state, 1, samples)]
                t = time.process_time() - start
                per_kind[name][d.kind].append(t)
                total += t
                hb = d.legal.index(d.honest_best)
                sb = max(range(len(values)), key=lambda i: (values[i], -i))
                c["n"] += 1
                c["differ"] += sb != hb and values[sb] != values[hb] and d.honest[sb] != d.honest[hb]
                top = max(d.true)
                c["honest_true_cost"].append(top - d.true[hb])
                c["solved_true_cost"].append(top - d.true[sb])
                if d.kind == "bid" and "sun" in d.legal:
                    c["bids"] += 1
                    c["sun_h"] += d.legal[hb] == "sun"
                    c["sun_s"] += d.legal[sb] == "sun"
                    c["sun_t"] += d.legal[max(range(len(d.true)), key=lambda i: (d.true[i], -i))] == "sun"
            per_deal[name].append(total)
            line.append(f"{name} {total:.2f} s")
        print(f"  deal {done}: {len(decisions)} call decisions "
              f"({sum(d.kind == 'double' for d in decisions)} doubles); " + ", ".join(line), flush=True)

    print(f"\n{done} deals, {sum(len(x) for x in per_kind['analysis'].values()) / done:.1f} call decisions a deal")
    print("\nCPU per decision (ms, mean) and per deal (s)\n")
    print(f"| valuation | bid (n={len(per_kind['analysis']['bid'])}) | double (n={len(per_kind['analysis']['double'])})"
          " | per deal: mean s | max s | × analysis (deal) |")
    print("|---|---|---|---|---|---|")
    base = statistics.mean(per_deal["analysis"])
    for m in modes:
        cells = [f"{1000 * statistics.mean(per_kind[m][k]):.0f}" if per_kind[m][k] else "-" for k in ("bid", "double")]
        d = statistics.mean(per_deal[m])
        print(f"| {m} | " + " | ".join(cells) + f" | {d:.2f} | {max(per_deal[m]):.2f} | ×{d / base:.1f} |")
    print("\nSolved against the rollouts' honest values (the same decisions; GP on the true deal)\n")
    print("| solved samples | best call differs | true cost of the best: honest / solved | its best is a true "
          "best: honest / solved | Sun the best where open: honest / solved / true |")
    print("|---|---|---|---|---|")
    for samples in args.samples:
        c = compare[samples]
        k, b = c["n"], max(1, c["bids"])
        print(f"| {samples} | {100 * c['differ'] / k:.1f} % ({c['differ']}/{k})"
              f" | {statistics.mean(c['honest_true_cost']):.2f} / {statistics.mean(c['solved_true_cost']):.2f}"
              f" | {100 * sum(x == 0 for x in c['honest_true_cost']) / k:.1f} % / "
              f"{100 * sum(x == 0 for x in c['solved_true_cost']) / k:.1f} %"
              f" | {100 * c['sun_h'] / b:.0f} / {100 * c['sun_s'] / b:.0f} / {100 * c['sun_t'] / b:.0f} % "
              f"of {c['bids']} |")
    print("\nThe true cost of a valuation's best: the true best's value less the true value of its best on the "
          "deal as dealt (0 = a true best); a pass is 0.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=None)
    parser.add_argument("--seed", default="bench-viewvalues")
    parser.add_argument("--samples", type=int, nargs="+", default=None)
    parser.add_argument("--honest", type=int, default=16)
    parser.add_argument("--calls", action="store_true", help="the bids and doubles instead of the cards")
    args = parser.parse_args()
    if args.calls:
        args.deals = args.deals or 8
        args.samples = args.samples or [4, 8]
        return calls(args)
    args.deals = args.deals or 12
    args.samples = args.samples or [4, 8, 16]
    print(f"compiled modules: {sum(loaded().values())}; {args.deals} deals of normal bots; solved samples "
          f"{args.samples}; baseline: the analysis' card part at {args.honest} rollout samples")

    modes = ["analysis"] + [f"solved {n}" for n in args.samples]
    per_trick = {m: {b: [] for b in BUCKETS} for m in modes}
    per_deal = {m: [] for m in modes}
    compare = {n: {"n": 0, "differ": 0, "cost_gap": [], "honest_true_cost": [], "solved_true_cost": [],
                   "played_cost_h": [], "played_cost_s": []} for n in args.samples}
    bots = [bot("normal") for _ in range(4)]
    done = n = 0
    while done < args.deals:
        events = play_deal(f"{args.seed}-{n}", lambda s: bots[s.turn].choose(view(s, s.turn)), dealer=n % 4)
        n += 1
        chosen = decisions(events)
        if not chosen:
            continue                                   # a void deal
        done += 1
        seed = deal_seed(1, next(s.deck for _, _, s in chosen))
        analysis = {}
        total = 0.0
        exact_solvers: dict = {}
        for index, event, state in chosen:
            v = view(state, event.seat)
            start = time.process_time()
            analysis[index] = _decision(state, v, _plays(v), index, event, seed, args.honest, 2.0, exact_solvers)
            t = time.process_time() - start
            per_trick["analysis"][bucket(state.trick_no)].append(t)
            total += t
        per_deal["analysis"].append(total)
        line = [f"analysis {total:.2f} s"]
        for samples in args.samples:
            name, solvers, total = f"solved {samples}", {}, 0.0
            c = compare[samples]
            for index, event, state in chosen:
                start = time.process_time()
                values = [x for _, x in view_card_values(state, 1, samples, solvers)]
                t = time.process_time() - start
                per_trick[name][bucket(state.trick_no)].append(t)
                total += t
                d = analysis[index]
                p = d.legal.index(d.played)
                hb, sb = d.legal.index(d.honest_best), max(range(len(values)), key=values.__getitem__)
                c["n"] += 1
                c["differ"] += d.honest[sb] != d.honest[hb] and values[hb] != values[sb]
                cost_h, cost_s = max(d.honest) - d.honest[p], max(values) - values[p]
                c["played_cost_h"].append(cost_h)
                c["played_cost_s"].append(cost_s)
                c["cost_gap"].append(abs(cost_h - cost_s))
                top = max(d.true)
                c["honest_true_cost"].append(top - d.true[hb])
                c["solved_true_cost"].append(top - d.true[sb])
            per_deal[name].append(total)
            line.append(f"{name} {total:.2f} s")
        print(f"  deal {done}: {len(chosen)} card decisions; " + ", ".join(line), flush=True)

    base = {b: statistics.mean(per_trick["analysis"][b]) for b in BUCKETS}
    base_deal = statistics.mean(per_deal["analysis"])
    print(f"\n{done} deals, {sum(len(x) for x in per_trick['analysis'].values()) / done:.1f} card decisions a deal "
          f"(four seats)")
    print("\nCPU per decision (ms, mean; × the analysis' card part on the same decisions) and per deal (s)\n")
    print("| valuation | " + " | ".join(f"{b} (n={len(per_trick['analysis'][b])})" for b in BUCKETS)
          + " | all decisions | per deal: mean s | max s | × analysis (deal) |")
    print("|---|" + "---|" * (len(BUCKETS) + 4))
    for m in modes:
        cells = []
        for b in BUCKETS:
            x = statistics.mean(per_trick[m][b])
            cells.append(f"{1000 * x:.1f} (×{x / base[b]:.1f})")
        every = [t for b in BUCKETS for t in per_trick[m][b]]
        d = statistics.mean(per_deal[m])
        cells.append(f"{1000 * statistics.mean(every):.1f}")
        print(f"| {m} | " + " | ".join(cells) + f" | {d:.2f} | {max(per_deal[m]):.2f} | ×{d / base_deal:.1f} |")

    print("\nSolved against the rollouts' honest values (the same decisions; GP)\n")
    print("| solved samples | best card differs | mean abs(played cost solved − honest) | mean played cost: "
          "honest / solved | true cost of the best: honest / solved | its best is a true best: honest / solved |")
    print("|---|---|---|---|---|---|")
    for samples in args.samples:
        c = compare[samples]
        k = c["n"]
        print(f"| {samples} | {100 * c['differ'] / k:.1f} % ({c['differ']}/{k}) | {statistics.mean(c['cost_gap']):.2f}"
              f" | {statistics.mean(c['played_cost_h']):.2f} / {statistics.mean(c['played_cost_s']):.2f}"
              f" | {statistics.mean(c['honest_true_cost']):.2f} / {statistics.mean(c['solved_true_cost']):.2f}"
              f" | {100 * sum(x == 0 for x in c['honest_true_cost']) / k:.1f} % / "
              f"{100 * sum(x == 0 for x in c['solved_true_cost']) / k:.1f} % |")
    print("\n'Best card differs': the two bests are different cards worth differently by both valuations (ties "
          "aside). The true cost of a valuation's best is what playing it gives up on the true hands: lower is "
          "closer to what the cards were worth.")


if __name__ == "__main__":
    main()
