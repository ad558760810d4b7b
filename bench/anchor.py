"""Anchored-log benchmark: checkpoints, verification and receipts against baselines from the same run.

    python bench/anchor.py                     # DATABASE_URL, else the embedded server; 100,000 events
    python bench/anchor.py --events 200000 --streams 500

Builds a log of N events (S streams, appended in batches of 32) in a scratch schema, dropped after.
Reported: the first checkpoint over all N events (read + hash + sign) against a raw paged `SELECT` of the
same columns in the same order; an incremental checkpoint after 1,000 more events against recomputing the
root over the whole log; `verify_log` over everything (with a receipt per deal); and receipts signed,
verified and stored per second against single-event appends per second (what a deal's end costs anyway).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.anchor import (  # noqa: E402
    log_leaves,
    publish_checkpoint,
    sign_receipt,
    store_receipt,
    verify_log,
    verify_receipt,
)
from services.anchor.checkpoints import PAGE  # noqa: E402
from services.anchor.keys import Signer, load_or_create_key  # noqa: E402
from services.anchor.merkle import root  # noqa: E402
from services.db import create_pool, create_scratch_schema, drop_schema, schema_url  # noqa: E402
from services.eventstore import NewEvent, append, append_reporting  # noqa: E402

DATA = {"seat": 2, "card": "KH", "trick": 5}
BATCH = 32
RAW_PAGE = """SELECT stream_id, version, hash, tx_id, position FROM events
               WHERE (tx_id, position) > ($1::xid8, $2::bigint) ORDER BY tx_id, position LIMIT $3"""


async def raw_read(pool) -> int:
    after, count = (0, 0), 0
    while rows := await pool.fetch(RAW_PAGE, after[0], after[1], PAGE):
        count += len(rows)
        after = (rows[-1][3], rows[-1][4])
    return count


async def fill(pool, streams: int, events: int, versions: dict[str, int]) -> None:
    async def writer(names: list[str], quota: int) -> None:
        while quota > 0:
            for name in names:
                n = min(BATCH, quota)
                if n <= 0:
                    break
                versions[name] = await append(pool, name, versions.get(name, 0),
                                              [NewEvent(event_type="card_played", data=DATA) for _ in range(n)])
                quota -= n
    names = [f"table-{i}" for i in range(streams)]
    groups = [names[i::8] for i in range(8)]
    await asyncio.gather(*(writer(g, events // 8) for g in groups if g))


def timed(label: str, seconds: float, count: int, unit: str) -> float:
    rate = count / seconds if seconds else float("inf")
    print(f"  {label:<52} {seconds * 1000:9.1f} ms   {rate:12,.0f} {unit}/s")
    return rate


async def main(url: str, events: int, streams: int, receipts: int) -> None:
    schema = await create_scratch_schema(url, "bench_anchor")
    signer = Signer.of(load_or_create_key(Path(tempfile.mkdtemp()) / "signing-key.pem"))
    pool = await create_pool(schema_url(url, schema), min_size=2, max_size=10)
    try:
        versions: dict[str, int] = {}
        t = time.perf_counter()
        await fill(pool, streams, events, versions)
        n = await pool.fetchval("SELECT count(*) FROM events")
        print(f"Log: {n:,} events in {streams} streams (built in {time.perf_counter() - t:.1f} s)\n")

        print("Checkpoints")
        t = time.perf_counter()
        read = await raw_read(pool)
        base = timed("raw paged SELECT of the same rows (baseline)", time.perf_counter() - t, read, "events")
        t = time.perf_counter()
        first = await publish_checkpoint(pool, signer)
        full = timed(f"first checkpoint over {first.size:,} events", time.perf_counter() - t, first.size, "events")
        print(f"  {'ratio checkpoint / raw SELECT (throughput)':<52} {full / base:9.2f}")

        await fill(pool, 8, 1000, versions)
        t = time.perf_counter()
        second = await publish_checkpoint(pool, signer)
        incremental = time.perf_counter() - t
        timed(f"incremental checkpoint (+{second.size - first.size:,} events)", incremental,
              second.size - first.size, "events")
        t = time.perf_counter()
        assert root(await log_leaves(pool, second.size)).hex() == second.root
        rehash = time.perf_counter() - t
        timed(f"root recomputed over all {second.size:,} events", rehash, second.size, "events")
        print(f"  {'ratio full recompute / incremental (time)':<52} {rehash / incremental:9.1f}\n")

        print("Receipts")
        heads = await pool.fetch("SELECT stream_id, max(version), (array_agg(hash ORDER BY version DESC))[1] "
                                 "FROM events GROUP BY stream_id")
        t = time.perf_counter()
        signed = [sign_receipt(signer, heads[i % len(heads)][0], heads[i % len(heads)][1],
                               heads[i % len(heads)][2], "deal", i) for i in range(receipts)]
        timed(f"sign {receipts:,} receipts", time.perf_counter() - t, receipts, "receipts")
        t = time.perf_counter()
        assert all(verify_receipt(signer.public_key_hex, r) for r in signed)
        timed(f"verify {receipts:,} receipts (signature)", time.perf_counter() - t, receipts, "receipts")
        t = time.perf_counter()
        for r in signed[:len(heads)]:
            await store_receipt(pool, r)
        stored = timed(f"store {len(heads):,} receipts (one INSERT each)", time.perf_counter() - t, len(heads),
                       "receipts")
        t = time.perf_counter()
        k = 2000
        for i in range(k):
            await append_reporting(pool, "bench-appends", i, [NewEvent(event_type="card_played", data=DATA)])
        appends = timed(f"{k:,} single-event appends (baseline)", time.perf_counter() - t, k, "appends")
        print(f"  {'ratio stored receipts / appends (throughput)':<52} {stored / appends:9.2f}\n")

        print("Verification")
        t = time.perf_counter()
        report = await verify_log(pool, signer.public_key_hex)
        assert report.ok, report.findings[:3]
        timed(f"verify_log: {report.streams} streams, {report.events:,} events, {report.receipts} receipts",
              time.perf_counter() - t, report.events, "events")
    finally:
        await pool.close()
        await drop_schema(url, schema)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--streams", type=int, default=400)
    parser.add_argument("--receipts", type=int, default=5_000)
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL")
    if not database_url:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from services.db import embedded_server
        database_url = embedded_server().url
    asyncio.run(main(database_url, args.events, args.streams, args.receipts))
