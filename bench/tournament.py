"""Benchmark: draw and play championships through decide/evolve with instant simulated results.

Run: python bench/tournament.py   (prints seconds; target: 10,240-team knock-out < 2 s)
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from domain.tournament import Settings  # noqa: E402
from domain.tournament.simulation import Simulation  # noqa: E402


def bench(label: str, settings: Settings, teams: int, seed: str = "bench") -> None:
    sim = Simulation(settings, teams, seed)
    t0 = time.perf_counter()
    sim.register()
    t1 = time.perf_counter()
    sim.draw()
    t2 = time.perf_counter()
    state = sim.run()
    t3 = time.perf_counter()
    matches = sum(len(r.matches) for r in state.rounds)
    print(f"{label:<40} register {t1 - t0:6.2f}s  draw {t2 - t1:6.3f}s  play {t3 - t2:6.2f}s  "
          f"draw+play {t3 - t1:6.2f}s  total {t3 - t0:6.2f}s  "
          f"({len(state.rounds)} rounds, {matches} matches, {len(sim.events)} events)", flush=True)


def main() -> None:
    bench("single elimination, 10,240 teams", Settings("bench", "single_elimination"), 10_240)
    bench("single elimination, 65,536 teams", Settings("bench", "single_elimination"), 65_536)
    bench("double elimination, 4,096 teams", Settings("bench", "double_elimination"), 4_096)
    bench("Swiss, 2,048 teams (11 rounds)", Settings("bench", "swiss"), 2_048)
    bench("groups → knock-out, 10,240 teams", Settings("bench", "groups_knockout"), 10_240)


if __name__ == "__main__":
    main()
