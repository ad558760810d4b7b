"""Fair-play analysis: recall of planted cheaters at a false-positive rate of 1 % over 1,000 honest players,
and the analysis' speed.

    python bench/fairplay.py [--honest-deals 240] [--cheat-deals 80] [--players 1000] [--cheaters 200]
                             [--deals 200] [--samples 16] [--jobs 2] [--plot docs/img/fairplay-roc.png]

1. **Pools of analysed deals** (domain/baloot/fairplay.py ``analyse_deal``), each deal played by bots from its
   own seed: honest tables (seats 0 and 2 at one level, easy, normal or hard, against normal bots; every seat
   judged), and tables where seat 0 (a ghost: he sees every hand) or seats 0 and 2 (a colluding pair: each
   sees his partner's hand) cheat on a share of their card choices (100 %, 50 %, 25 %) and play as the hard bot
   otherwise (the ghost bids and doubles seeing every hand too). Each judged seat of a deal is one *seat-deal*:
   its telling decisions and how many it followed, cards and bids apart.
2. **Players**: a player is ``--deals`` seat-deals drawn (with replacement) from the pool of his kind: an honest
   player of a level from that level's honest seat-deals (half of the honest pool; the other half measures the
   honest share, the baseline), a ghost or a colluder from his pool. A *second-account daily player* has seen
   the full deal of the shared boards (a quarter of his deals: ``--shared``) and plays them as a ghost, the
   rest as the honest hard bot; every honest player has a quarter of his deals marked shared too. Players
   drawn from one pool are alike by construction: bots of one level are one player, and the draws stand for
   his games. That understates how much honest people differ among themselves (the docs say so).
3. **The test** of each kind's variant (domain/baloot/fairplay.py ``flag``): ghosts, the true hands over all
   his telling cards; colluders, the partner variant; daily players, the true hands over his shared boards
   only; and the ghosts again by their bids and doubles alone. The ROC curve of each kind and share sweeps the p-value's threshold; the recall is read at the
   largest threshold that flags at most 1 % of the honest players.
4. **Speed**: CPU seconds per analysed deal (all four seats, both variants), and deals per second per core.
"""

from __future__ import annotations

import argparse
import bisect
import concurrent.futures
import hashlib
import os
import pathlib
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from domain.baloot.bots import bot  # noqa: E402
from domain.baloot.fairplay import analyse_deal, binomial_tail, planted, play_deal  # noqa: E402

LEVELS = ("easy", "normal", "hard")
SHARES = (1.0, 0.5, 0.25)
KINDS = ("ghost", "colluder", "daily", "bids")          # "bids": the ghosts again, judged by their bids alone
FPR = 0.01


def seat_deals(job: tuple) -> tuple[list, float, float]:
    """One deal of a pool, played and analysed: its judged seats' (seat level, telling, followed, partner-telling,
    followed partner), the CPU seconds of play and of analysis."""
    pool, seed, samples = job
    kind, level, share = pool
    levels = (level, "normal", level, "normal") if kind == "honest" else ("hard", "normal", "hard", "normal")
    cheats = {"honest": {}, "ghost": {0: "ghost"}, "colluder": {0: "partner", 2: "partner"}}[kind]
    judged = (0, 1, 2, 3) if kind == "honest" else tuple(cheats)
    start = time.process_time()
    events = play_deal(seed, planted([bot(x) for x in levels], cheats, share, seed=hash_seed(seed),
                                     samples=samples), dealer=hash_seed(seed) % 4)
    played = time.process_time()
    decisions = analyse_deal(events, seed=hash_seed(seed) + 1, samples=samples, seats=judged)
    analysed = time.process_time()
    out = []
    for seat in judged:
        cards = [d for d in decisions if d.seat == seat and d.kind == "card"]
        calls = [d for d in decisions if d.seat == seat and d.kind != "card"]
        out.append((levels[seat], sum(d.telling for d in cards), sum(d.followed_true for d in cards),
                    sum(d.partner_telling for d in cards), sum(d.followed_partner for d in cards),
                    sum(d.telling for d in calls), sum(d.followed_true for d in calls)))
    return out, played - start, analysed - played


def hash_seed(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def build_pools(args) -> tuple[dict, list[float]]:
    jobs = []
    for level in LEVELS:
        jobs += [(("honest", level, 0.0), f"fp-honest-{level}-{n}", args.samples) for n in range(args.honest_deals)]
    for kind in ("ghost", "colluder"):
        for share in SHARES:
            jobs += [((kind, "hard", share), f"fp-{kind}-{share}-{n}", args.samples) for n in range(args.cheat_deals)]
    pools: dict[tuple, list] = {}
    play_s, analysis_s, analysed = 0.0, 0.0, 0
    done = 0
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as ex:
        for job, (rows, p, a) in zip(jobs, ex.map(seat_deals, jobs, chunksize=4)):
            kind, level, share = job[0]
            for row in rows:
                key = ("honest", row[0], 0.0) if kind == "honest" else job[0]
                pools.setdefault(key, []).append(row[1:])
            play_s += p
            if kind == "honest":                # every seat analysed: the speed figure
                analysis_s += a
                analysed += 1
            done += 1
            if done % 100 == 0:
                print(f"  {done}/{len(jobs)} deals", file=sys.stderr, flush=True)
    return pools, [play_s, analysis_s, analysed]


def p_value(rows, telling: int, followed: int, baseline: float) -> float:
    n = sum(r[telling] for r in rows)
    k = sum(r[followed] for r in rows)
    return binomial_tail(k, n, baseline) if n else 1.0


def share_of(rows, telling: int, followed: int) -> float:
    n = sum(r[telling] for r in rows)
    return sum(r[followed] for r in rows) / n if n else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest-deals", type=int, default=240, help="honest deals per level")
    parser.add_argument("--cheat-deals", type=int, default=80, help="deals per kind of cheater and share")
    parser.add_argument("--players", type=int, default=1000, help="honest players")
    parser.add_argument("--cheaters", type=int, default=200, help="players of each kind and share")
    parser.add_argument("--deals", type=int, nargs="+", default=[50, 100, 200], help="deals per player")
    parser.add_argument("--shared", type=float, default=0.25, help="share of a player's deals on shared boards")
    parser.add_argument("--samples", type=int, default=16, help="deals of the hidden cards per decision")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--plot", type=pathlib.Path, help="write the ROC curves here (PNG, matplotlib)")
    args = parser.parse_args()

    start = time.perf_counter()
    pools, (play_s, analysis_s, analysed) = build_pools(args)
    wall = time.perf_counter() - start
    per_deal = analysis_s / analysed
    print(f"pools: {sum(map(len, pools.values()))} seat-deals in {wall:.0f} s ({args.jobs} processes); "
          f"play {play_s:.0f} CPU s, analysis {per_deal * 1000:.0f} CPU ms per deal (four seats, both variants, "
          f"{args.samples} samples) = {1 / per_deal:.1f} deals/s per core")

    rng = random.Random("bench-fairplay")
    baseline_rows, honest_pool = [], {}
    for level in LEVELS:
        rows = pools[("honest", level, 0.0)][:]
        rng.shuffle(rows)
        half = len(rows) // 2
        baseline_rows += rows[:half]
        honest_pool[level] = rows[half:]
    base_true = share_of(baseline_rows, 0, 1)
    base_partner = share_of(baseline_rows, 2, 3)
    base_bids = share_of(baseline_rows, 4, 5)
    print(f"baseline (honest share, {len(baseline_rows)} seat-deals of every level): true {base_true:.3f}, "
          f"partner {base_partner:.3f}, bids {base_bids:.3f}; by level (true/partner/bids): " + ", ".join(
              f"{lv} {share_of(honest_pool[lv], 0, 1):.3f}/{share_of(honest_pool[lv], 2, 3):.3f}/"
              f"{share_of(honest_pool[lv], 4, 5):.3f}" for lv in LEVELS))
    telling_rate = {k: sum(r[0] for r in v) / len(v) for k, v in pools.items()}

    def draw(pool, n):
        return [pool[rng.randrange(len(pool))] for _ in range(n)]

    def scores(rows_shared, kind):
        rows, shared = rows_shared
        if kind == "ghost":
            return p_value(rows, 0, 1, base_true)
        if kind == "colluder":
            return p_value(rows, 2, 3, base_partner)
        if kind == "bids":
            return p_value(rows, 4, 5, base_bids)
        return p_value([r for r, s in zip(rows, shared) if s], 0, 1, base_true)

    def player(pool, n, cheat_pool=None):
        shared = [rng.random() < args.shared for _ in range(n)]
        rows = draw(pool, n)
        if cheat_pool is not None:                     # the daily player: a ghost on the shared boards
            rows = [cheat_pool[rng.randrange(len(cheat_pool))] if s else r for r, s in zip(rows, shared)]
        return rows, shared

    table, curves = [], {}
    for n in args.deals:
        honest = [player(honest_pool[LEVELS[i % len(LEVELS)]], n) for i in range(args.players)]
        for kind in KINDS:
            h = sorted(scores(p, kind) for p in honest)
            allowed = int(FPR * len(h))                # flag at most this many honest players
            threshold = h[allowed] if allowed < len(h) else 1.0   # flag p < threshold
            while allowed > 0 and threshold == h[allowed - 1]:
                allowed -= 1
                threshold = h[allowed]
            fp = bisect.bisect_left(h, threshold) / len(h)
            for share in SHARES:
                pool = pools[("ghost" if kind in ("daily", "bids") else kind, "hard", share)]
                cheaters = [player(honest_pool["hard"], n, pool) if kind == "daily" else player(pool, n)
                            for _ in range(args.cheaters)]
                c = sorted(scores(p, kind) for p in cheaters)
                recall = bisect.bisect_left(c, threshold) / len(c)
                at_level = bisect.bisect_left(c, 0.001) / len(c)
                honest_at_level = bisect.bisect_left(h, 0.001) / len(h)
                table.append((kind, share, n, recall, fp, threshold, at_level, honest_at_level))
                if n == max(args.deals):
                    curves[(kind, share)] = (h, c)

    print(f"\n{'cheater':<9} {'cheats':>6} {'deals':>5} {'recall@FPR<=1%':>14} {'FPR':>6} {'p below':>9} "
          f"{'recall@p<.001':>13} {'honest@p<.001':>13}")
    for kind, share, n, recall, fp, threshold, at_level, honest_at_level in table:
        print(f"{kind:<9} {share:>6.0%} {n:>5} {recall:>14.1%} {fp:>6.1%} {threshold:>9.2g} {at_level:>13.1%} "
              f"{honest_at_level:>13.1%}")
    print("\ntelling decisions per seat-deal: " + ", ".join(
        f"{k[0]}/{k[1]}{'' if k[0] == 'honest' else f'/{k[2]:.0%}'} {v:.2f}" for k, v in sorted(telling_rate.items())))
    if args.plot:
        plot(curves, args.plot, max(args.deals), args.players, args.cheaters)
        print(f"ROC curves: {args.plot}")


def plot(curves, path: pathlib.Path, deals: int, players: int, cheaters: int) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(KINDS), figsize=(16, 4.2), sharey=True)
    for ax, kind in zip(axes, KINDS):
        for share in SHARES:
            h, c = curves[(kind, share)]
            thresholds = sorted(set(h) | set(c) | {1.0 + 1e-9})
            fpr = [bisect.bisect_left(h, t) / len(h) for t in thresholds]
            tpr = [bisect.bisect_left(c, t) / len(c) for t in thresholds]
            ax.plot([max(f, 1e-4) for f in fpr], tpr, drawstyle="steps-post", label=f"cheats on {share:.0%}")
        ax.axvline(FPR, color="grey", linestyle=":", linewidth=1)
        ax.set_xscale("log")
        ax.set_xlim(1e-3, 1)
        ax.set_ylim(0, 1.02)
        ax.set_title({"ghost": "ghost (sees every hand)", "colluder": "colluding pair (partner's hand)",
                      "daily": "second account (shared boards)", "bids": "ghost, by his bids and doubles alone"}[kind],
                     fontsize=10)
        ax.set_xlabel("false-positive rate (honest players flagged)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("recall (cheaters flagged)")
    axes[-1].legend(loc="lower right", fontsize=8)
    fig.suptitle(f"Fair-play analysis: {players} honest players, {cheaters} cheaters of each kind and share, "
                 f"{deals} deals each (bench/fairplay.py)", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
