"""Rules-engine benchmark (one core): events replayed/s, random deals simulated/s, hand records audited/s, and
whole all-bot games played in memory as the workers play them, by the compiled engine (``services/compiled.py``)
and by the same code from its sources (``BALOOT_PURE``, in a second process), with their ratio.

    python bench/engine.py [--seconds 3] [--corpus 2000]

Reference point from the issue: the most complete public Python Baloot engine plays about 630 deals/s
(20,000 card plays/s) on this machine; the targets are ≥ 3,000 deals/s and ≥ 200,000 events/s replayed.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from services.compiled import loaded  # noqa: E402  (first: it puts the compiled engine's loader in place)
from domain.baloot import deal as deal_mod  # noqa: E402
from domain.baloot.audit import audit_record  # noqa: E402
from domain.baloot.events import CardPlayed, DoubleCalled, ProjectsDeclared, StartDeal  # noqa: E402
from domain.baloot.handrecord import encode_record, export_record, parse_record  # noqa: E402
from domain.baloot.profiles import SAUDI  # noqa: E402
from domain.baloot.simulate import play_deal, random_policy  # noqa: E402
from services.workers.baselines import in_memory_rate  # noqa: E402


def timed(fn, seconds: float) -> tuple[int, float]:
    """Run ``fn(i)`` repeatedly for about ``seconds``; returns (units done, elapsed)."""
    done, i = 0, 0
    start = time.perf_counter()
    while True:
        done += fn(i)
        i += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--corpus", type=int, default=2000, help="deals in the replay/audit corpus")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core

    rng = random.Random(1)
    policies = [random_policy(rng) for _ in range(4)]

    def simulate_one(i: int) -> int:
        start = StartDeal(dealer=i & 3, profile=SAUDI, scores_before=(110 if i & 4 else 40, 40),
                          seed=f"bench-{i}")
        state, _ = play_deal(start, policies)
        return 1

    # A corpus of complete deals for replay and audit.
    corpus = [play_deal(StartDeal(dealer=i & 3, scores_before=(110, 40), seed=f"corpus-{i}"), policies)[1]
              for i in range(args.corpus)]
    total_events = sum(len(ev) for ev in corpus)
    plays = sum(1 for ev in corpus for e in ev if isinstance(e, CardPlayed))
    played_out = sum(1 for ev in corpus if sum(1 for e in ev if isinstance(e, CardPlayed)) == 32)
    doubled = sum(1 for ev in corpus if any(isinstance(e, DoubleCalled) and e.call != "pass" for e in ev))
    declared = sum(1 for ev in corpus if any(isinstance(e, ProjectsDeclared) for e in ev))
    records = [encode_record(export_record(ev)) for ev in corpus]
    evolve = deal_mod.evolve
    initial = deal_mod.INITIAL

    def replay_all(_: int) -> int:
        for ev in corpus:
            s = initial
            for e in ev:
                s = evolve(s, e)
        return total_events

    def audit_all(_: int) -> int:
        for data in records:
            audit_record(parse_record(data))
        return len(records)

    deals, t_deals = timed(simulate_one, args.seconds)
    events, t_events = timed(replay_all, args.seconds)
    audited, t_audit = timed(audit_all, args.seconds)
    deals_per_s = deals / t_deals
    print(f"corpus: {len(corpus)} random deals, {total_events} events ({total_events / len(corpus):.1f}/deal), "
          f"{played_out} played out to 32 cards, {plays / len(corpus):.1f} card plays/deal, "
          f"{doubled} doubled, {declared} with declared projects")
    print(f"random deals simulated : {deals_per_s:10,.0f} deals/s  "
          f"({deals_per_s * plays / len(corpus):,.0f} card plays/s)   target ≥ 3,000  "
          f"({deals_per_s / 630:.1f}× the 630 deals/s reference)")
    print(f"events replayed (evolve): {events / t_events:10,.0f} events/s   target ≥ 200,000")
    print(f"hand records audited   : {audited / t_audit:10,.0f} records/s")
    compiled = in_memory_rate(args.seconds)[1]
    form = "compiled" if all(loaded().values()) else "NOT compiled (see setup.py)"
    probe = f"from services.workers.baselines import in_memory_rate; print(in_memory_rate({args.seconds})[1])"
    env = dict(os.environ, BALOOT_PURE="1", PYTHONPATH=str(ROOT))
    source = float(subprocess.run([sys.executable, "-c", probe], env=env, cwd=ROOT, check=True, capture_output=True,
                                  text=True).stdout.split()[-1])
    print(f"all-bot games in memory: {compiled:10,.0f} bot actions/s {form}, {source:,.0f}/s from the sources "
          f"(BALOOT_PURE): x{compiled / source:.2f}")


if __name__ == "__main__":
    main()
