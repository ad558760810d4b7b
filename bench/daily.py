"""Daily deal benchmark: 100,000 simulated entries of one day scored against the field and ranked.

    python bench/daily.py                      # DATABASE_URL, else the embedded server
    python bench/daily.py --entries 100000 --boards 8 --distinct 500 --projected 20000

1. The day's boards are played in memory by the domain (``domain.baloot.daily_play``): ``--distinct`` simulated
   players per board (a ``normal`` bot that slips 15% of the time, each with its own seed) in seat 0, bots in
   the other seats. Each of the ``--entries`` entries takes, for each board, one of those plays (a seeded
   draw): playing 800,000 deals would take about an hour and a half on this machine, and the read model's cost
   depends on the number of results, not on how they were played. ``--distinct`` equal to ``--entries``
   plays every entry's boards.
2. The first ``--projected`` results go through the projection's handler (``apply_daily``), one event at
   a time in the runner's transactions of 500, as the runner applies ``deal_scored`` events; the rest are
   copied into ``daily_results`` in bulk (the same rows), so the scoring and the pages see the full day.
3. The day is scored in SQL (``rescore``) and, as a baseline, in Python by ``domain.baloot.daily.score_day``;
   both must agree on every entry's totals.
4. Leaderboard pages: the first page and a deep page (rank 90,000) through ``projection.leaderboard``
   (keyset on the rank index), against raw SQL on the same server: the same index range as a bare query,
   and an OFFSET query sorting the scores on the fly. Medians of ``--repeat`` reads.

Everything runs in a scratch schema, dropped after. Timings on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg  # noqa: E402
import msgspec  # noqa: E402

from domain.baloot import daily  # noqa: E402
from domain.baloot.daily_play import SimulatedPlayer, play_board  # noqa: E402
from domain.baloot.events import DealResult, DealScored  # noqa: E402
from services.daily import names  # noqa: E402
from services.daily.projection import apply_daily, leaderboard, rescore  # noqa: E402
from services.db import create_scratch_schema, drop_schema, schema_url  # noqa: E402

DAY = dt.date(2026, 12, 1)
PROFILE = "saudi"


class FakeRow:
    """What the projection handler reads of a stored event (``RecordedEvent``'s fields)."""

    __slots__ = ("stream_id", "event_type", "schema_version", "data_json", "position", "version")

    def __init__(self, stream_id, data_json, position):
        self.stream_id, self.event_type, self.schema_version = stream_id, "deal_scored", 1
        self.data_json, self.position, self.version = data_json, position, 5


def simulate(boards: int, distinct: int, level: str, seed: str) -> list[list[tuple[int, int]]]:
    bs = daily.boards(names.set_id(DAY, PROFILE), seed, boards)
    return [[play_board(b, SimulatedPlayer(level, f"{seed}:{k}"), level) for k in range(distinct)] for b in bs]


async def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


async def run(args) -> None:
    url = os.environ.get("DATABASE_URL")
    if not url:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from services.db import database_server
            url = database_server().url
    t = time.perf_counter()
    plays = simulate(args.boards, args.distinct, args.level, args.seed)
    t_sim = time.perf_counter() - t
    deals = args.boards * args.distinct
    print(f"simulated {deals} deals ({args.distinct} per board, {args.boards} boards) in {t_sim:.1f} s "
          f"({t_sim / deals * 1000:.2f} ms a deal)")
    rng = random.Random(args.seed)
    results = []                         # (board, user, game points, position)
    position = 0
    for i in range(args.entries):
        user = f"u{i:06d}"
        for b in range(args.boards):
            position += 1
            results.append((b + 1, user, plays[b][rng.randrange(args.distinct)], position))
    schema = await create_scratch_schema(url, "bench_daily")
    pool = await asyncpg.create_pool(schema_url(url, schema), min_size=2, max_size=4)
    try:
        # 2. the projection's handler for the first results, in transactions of 500 like the runner's
        projected = results[:args.projected]
        t = time.perf_counter()
        async with pool.acquire() as conn:
            for k in range(0, len(projected), 500):
                async with conn.transaction():
                    for board, user, gp, pos in projected[k:k + 500]:
                        event = DealScored(DealResult(card_points=(0, 0), game_points=gp))
                        await apply_daily(conn, FakeRow(f"table-{names.table_id(DAY, PROFILE, board, user)}",
                                                        msgspec.json.encode(event), pos))
        t_proj = time.perf_counter() - t
        rest = results[args.projected:]
        t = time.perf_counter()
        async with pool.acquire() as conn:
            await conn.copy_records_to_table(
                "daily_results", columns=["day", "profile", "board", "user_id", "margin", "position"],
                records=[(DAY, PROFILE, b, u, gp[0] - gp[1], p) for b, u, gp, p in rest])
            await conn.execute("UPDATE daily_days SET results = results + $1 WHERE day = $2 AND profile = $3",
                               len(rest), DAY, PROFILE)
        t_copy = time.perf_counter() - t
        print(f"results: {len(projected)} through the projection handler in {t_proj:.1f} s "
              f"({len(projected) / t_proj:,.0f} events/s), {len(rest)} copied in {t_copy:.1f} s")
        # 3. scoring: SQL vs the domain's fold in Python
        t = time.perf_counter()
        await rescore(pool, DAY, PROFILE)
        t_sql = time.perf_counter() - t
        by_board: dict[int, dict[str, int]] = {}
        finished: dict[str, int] = {}
        for board, user, gp, pos in results:
            by_board.setdefault(board, {})[user] = gp[0] - gp[1]
            finished[user] = pos
        t = time.perf_counter()
        expected = daily.score_day(by_board, finished)
        t_py = time.perf_counter() - t
        rows = {r["user_id"]: r for r in await pool.fetch(
            "SELECT user_id, mp, imps, boards, mp_rank FROM daily_scores WHERE day = $1 AND profile = $2",
            DAY, PROFILE)}
        agree = all((rows[s.entry]["mp"], rows[s.entry]["imps"], rows[s.entry]["mp_rank"]) == (s.mp, s.imps, k + 1)
                    for k, s in enumerate(expected))
        print(f"scored and ranked {len(rows):,} entries ({len(results):,} results): SQL rescore {t_sql:.2f} s, "
              f"Python score_day {t_py:.2f} s (ratio {t_sql / t_py:.2f}); agree: {agree}")
        # 4. pages
        deep = min(90_000, max(0, args.entries - 50))
        page_first = await median_ms(lambda: leaderboard(pool, DAY, PROFILE, after=0, limit=50), args.repeat)
        page_deep = await median_ms(lambda: leaderboard(pool, DAY, PROFILE, after=deep, limit=50), args.repeat)
        raw = ("SELECT mp_rank, user_id, mp, imps, boards FROM daily_scores WHERE day = $1 AND profile = $2 "
               "AND mp_rank > $3 ORDER BY mp_rank LIMIT 50")
        offset = ("SELECT user_id, mp, imps, boards FROM daily_scores WHERE day = $1 AND profile = $2 "
                  "ORDER BY mp DESC, imps DESC, boards DESC, finished_at, user_id OFFSET $3 LIMIT 50")
        raw_first = await median_ms(lambda: pool.fetch(raw, DAY, PROFILE, 0), args.repeat)
        raw_deep = await median_ms(lambda: pool.fetch(raw, DAY, PROFILE, deep), args.repeat)
        off_first = await median_ms(lambda: pool.fetch(offset, DAY, PROFILE, 0), args.repeat)
        off_deep = await median_ms(lambda: pool.fetch(offset, DAY, PROFILE, deep), args.repeat)
        print(f"leaderboard page of 50 (median of {args.repeat}):")
        print(f"  first page: service {page_first:.2f} ms, raw keyset SQL {raw_first:.2f} ms "
              f"(ratio {page_first / raw_first:.2f}), raw OFFSET SQL {off_first:.2f} ms")
        print(f"  rank {deep:,}: service {page_deep:.2f} ms, raw keyset SQL {raw_deep:.2f} ms "
              f"(ratio {page_deep / raw_deep:.2f}), raw OFFSET SQL {off_deep:.2f} ms "
              f"(service is {off_deep / page_deep:.1f}x faster)")
    finally:
        await pool.close()
        await drop_schema(url, schema)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--entries", type=int, default=100_000)
    p.add_argument("--boards", type=int, default=8)
    p.add_argument("--distinct", type=int, default=500)
    p.add_argument("--projected", type=int, default=20_000)
    p.add_argument("--level", default="normal")
    p.add_argument("--seed", default="bench-daily")
    p.add_argument("--repeat", type=int, default=50)
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
