"""Anchored-log benchmark: checkpoints, verification and receipts against baselines from the same run.

    python bench/anchor.py                     # DATABASE_URL, else the embedded server; 100,000 events
    python bench/anchor.py --events 200000 --streams 500

Builds a log of N events (S streams, appended in batches of 32) in a scratch schema, dropped after.
Reported: the first checkpoint over all N events (read + hash + sign + its stored subtrees) against a raw
paged `SELECT` of the same columns in the same order; an incremental checkpoint after 1,000 more events
against recomputing the root over the whole log; consistency and inclusion proofs from the stored subtrees
against the same proofs recomputed from every event (what the API did before), with the CPU they take and
how long they stall the event loop; the one-off backfill of the subtrees (a database made before them);
`verify_log` over everything (with a receipt per deal); and receipts signed, verified and stored per
second against single-event appends per second (what a deal's end costs anyway).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.anchor import (  # noqa: E402
    log_leaves,
    publish_checkpoint,
    sign_receipt,
    store_receipt,
    tree,
    verify_log,
    verify_receipt,
)
from services.anchor.checkpoints import PAGE, consistency, consistency_from_events, inclusion  # noqa: E402
from services.anchor.keys import Signer, load_or_create_key  # noqa: E402
from services.anchor.merkle import inclusion_proof, root, verify_consistency, verify_inclusion  # noqa: E402
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


class LoopLag:
    """The longest the event loop went without running a 1 ms ticker: what /health waits behind."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task | None = None

    async def _tick(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            self.worst = max(self.worst, time.perf_counter() - t - 0.001)

    def __enter__(self) -> LoopLag:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc) -> None:
        self._task.cancel()


async def proofs(pool, url: str, schema: str, first, second) -> None:
    """Proofs from stored subtrees against the full recomputation, and the backfill."""
    m, n, k = first.size, second.size, 200
    rng = random.Random(1)
    print(f"Proofs (tree of {n:,} events; stored: mean of {k} distinct proofs, full: one)")
    pairs = [(m, n)] + [(rng.randint(1, n), n) for _ in range(k - 1)]
    t, cpu = time.perf_counter(), time.process_time()
    with LoopLag() as lag:
        stored = [await consistency(pool, a, b) for a, b in pairs]
    wall, cpu = (time.perf_counter() - t) / k, (time.process_time() - cpu) / k
    assert verify_consistency(m, n, bytes.fromhex(first.root), bytes.fromhex(second.root), stored[0])
    print(f"  {'consistency proof from stored subtrees':<52} {wall * 1000:9.2f} ms   CPU {cpu * 1000:.2f} ms, "
          f"loop stalled at most {lag.worst * 1000:.1f} ms")
    t = time.perf_counter()
    with LoopLag() as lag:
        full = await consistency_from_events(pool, m, n)
    full_wall = time.perf_counter() - t
    assert full == stored[0]
    print(f"  {'consistency proof recomputed from every event':<52} {full_wall * 1000:9.1f} ms   "
          f"loop stalled at most {lag.worst * 1000:.1f} ms")
    print(f"  {'ratio full / stored (time)':<52} {full_wall / wall:9,.0f}")

    indices = [rng.randrange(n) for _ in range(k)]
    t, cpu = time.perf_counter(), time.process_time()
    with LoopLag() as lag:
        paths = [await inclusion(pool, i, n) for i in indices]
    wall, cpu = (time.perf_counter() - t) / k, (time.process_time() - cpu) / k
    signed = bytes.fromhex(second.root)
    assert all(verify_inclusion(i, n, leaf, path, signed) for i, (leaf, path) in zip(indices, paths))
    print(f"  {'inclusion proof from stored subtrees':<52} {wall * 1000:9.2f} ms   CPU {cpu * 1000:.2f} ms, "
          f"loop stalled at most {lag.worst * 1000:.1f} ms")
    t = time.perf_counter()
    leaves = await log_leaves(pool, n)
    full_path = inclusion_proof(indices[0], leaves)
    full_wall = time.perf_counter() - t
    assert (leaves[indices[0]], full_path) == paths[0]
    print(f"  {'inclusion proof recomputed from every event':<52} {full_wall * 1000:9.1f} ms")
    print(f"  {'ratio full / stored (time)':<52} {full_wall / wall:9,.0f}")

    t = time.perf_counter()
    with LoopLag() as lag:
        await asyncio.gather(*(consistency(pool, a, b) for a, b in pairs[:50]))
    print(f"  {'50 concurrent consistency proofs (pool of 10)':<52} {(time.perf_counter() - t) * 1000:9.1f} ms   "
          f"loop stalled at most {lag.worst * 1000:.1f} ms")

    # The backfill, as on a database made before the subtrees were stored (superuser: past the trigger).
    conn = await asyncpg.connect(url, server_settings={"search_path": schema})
    try:
        before = await conn.fetch("SELECT * FROM log_tree ORDER BY level, index")
        await conn.execute("SET session_replication_role = replica")
        await conn.execute("DELETE FROM log_tree")
    except asyncpg.PostgresError as exc:
        await conn.close()
        print(f"  (backfill not measured: {exc})\n")
        return
    t = time.perf_counter()
    read = await tree.backfill(pool)
    took = time.perf_counter() - t
    after = await conn.fetch("SELECT * FROM log_tree ORDER BY level, index")
    await conn.close()
    assert after == before
    print(f"  {f'backfill of the subtrees ({read:,} events)':<52} {took * 1000:9.1f} ms   "
          f"{took * 1_000_000 / read:.1f} s per million events\n")


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
        print(f"  {'ratio full recompute / incremental (time)':<52} {rehash / incremental:9.1f}")
        rows = await pool.fetchval("SELECT count(*) FROM log_tree")
        print(f"  {'stored subtrees (log_tree rows)':<52} {rows:9,}\n")

        await proofs(pool, url, schema, first, second)

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
