"""The access policy's cost on a command's path, against a baseline measured in the same run.

    python bench/access.py                # 200,000 calls each

A player's command asks the policy which seat he acts for (``Access.acting_seat``), and each stream or view
asks what he sees (``Access.sight``); for a seated player both are answered from the table's fold alone (no
query). Reported per call: the viewer made and the policy asked, against the baseline of the same decision
written inline (the seat's index in the table's seats), and against the server's CPU per action of
``bench/human_load.py`` (about 2,500 us on this machine, 6 December 2026), so the share of a command it is.
A spectator's and an official's answers read the database (one query of his roles per request) and are
measured by human_load's streams, not here.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain.table import TableOpened  # noqa: E402
from services.access import Access  # noqa: E402
from services.tables.service import Table  # noqa: E402

SERVER_US_PER_ACTION = 2500.0           # bench/human_load.py, 100 tables, 1 API process (see the docstring)


async def per_call(fn, n: int) -> float:
    """Microseconds a call of ``fn()`` (awaited), the better of two passes."""
    best = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        for _ in range(n):
            await fn()
        best = min(best, (time.perf_counter() - started) / n * 1e6)
    return best


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200_000)
    args = parser.parse_args()
    table = Table(opened=TableOpened(table_id="t", seats=("a", "b", "c", "d")))
    access = Access(None, None, None, None)          # a seated player's answers read no database

    async def inline():                              # the baseline: the decision written where it is used
        return table.seats.index("c")

    base = await per_call(inline, args.calls)
    print(f"baseline (the seat's index, inline): {base:.2f} us a call")
    for label, fn in (("acting_seat", lambda: access.acting_seat(access.viewer("c"), table, None)),
                      ("sight", lambda: access.sight(access.viewer("c"), table, None))):
        us = await per_call(fn, args.calls)
        print(f"{label:>12} (viewer made, policy asked): {us:.2f} us a call, {us / base:.1f}x the baseline, "
              f"{us / SERVER_US_PER_ACTION:.2%} of the server's CPU per action")


if __name__ == "__main__":
    asyncio.run(main())
