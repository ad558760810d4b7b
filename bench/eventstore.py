"""Event store benchmark: append and read-all throughput against raw asyncpg on the same server.

    python bench/eventstore.py                 # DATABASE_URL, else the embedded server
    python bench/eventstore.py --events 20000 --writers 1 8 64 --batches 1 40

Appends: W concurrent writers, each on its own stream, each append a batch of B events through
`append(pool, ...)` (expected-version check, idempotency, hash chain, NOTIFY) on the platform's pool
(services.db.create_pool), against the same rows inserted by
one raw `INSERT ... SELECT FROM unnest(...)` per batch into a plain table of the same shape (same
columns, keys and indexes; no trigger, no function).  Reads: `read_all()` in pages against a raw
`SELECT` of the same columns in pages by position.  Everything runs in a scratch schema, dropped after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg  # noqa: E402

from services.db import create_pool  # noqa: E402
from services.eventstore import START, NewEvent, append, migrate, read_all  # noqa: E402

RAW_TABLE = """
CREATE TABLE raw_events (
    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tx_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
    stream_id text NOT NULL, version integer NOT NULL, event_id uuid NOT NULL,
    event_type text NOT NULL, schema_version integer NOT NULL DEFAULT 1,
    data jsonb NOT NULL, metadata jsonb NOT NULL DEFAULT '{}',
    recorded_at timestamptz NOT NULL DEFAULT now(),
    prev_hash bytea NOT NULL, hash bytea NOT NULL,
    UNIQUE (stream_id, version), UNIQUE (event_id));
CREATE INDEX ON raw_events (tx_id, position);
"""

RAW_INSERT = """
INSERT INTO raw_events (stream_id, version, event_id, event_type, schema_version, data, metadata,
                        prev_hash, hash)
SELECT $1, $2 + k, id, t, sv, d, coalesce(m, '{}'), $8, $8
  FROM unnest($3::uuid[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[]) WITH ORDINALITY AS x(id, t, sv, d, m, k)
"""

COLUMNS = "position, tx_id, stream_id, version, event_id, event_type, schema_version, data, metadata, recorded_at"
RAW_READ = f"SELECT {COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2"

DATA = {"seat": 2, "card": "KH", "trick": 5, "hand": ["7S", "9S", "JH", "QD", "AC", "10C", "8D"]}


def new_batch(batch: int) -> list[NewEvent]:
    return [NewEvent(event_type="card_played", data=DATA, metadata={"actor": "seat-2"}) for _ in range(batch)]


async def store_writer(pool: asyncpg.Pool, writer: int, appends: int, batch: int, run: str) -> None:
    stream, version = f"{run}-w{writer}", 0
    for _ in range(appends):
        version = await append(pool, stream, version, new_batch(batch))


async def raw_writer(pool: asyncpg.Pool, writer: int, appends: int, batch: int, run: str) -> None:
    stream, version, dummy_hash = f"{run}-w{writer}", 0, bytes(32)
    async with pool.acquire() as conn:
        for _ in range(appends):
            events = new_batch(batch)  # the same Python-side work as an append: build, encode
            await conn.execute(
                RAW_INSERT, stream, version,
                [e.event_id for e in events], [e.event_type for e in events],
                [e.schema_version for e in events],
                [asyncpg_json(e.data) for e in events], [asyncpg_json(e.metadata) for e in events],
                dummy_hash)
            version += batch


def asyncpg_json(value) -> str:
    import msgspec
    return msgspec.json.encode(value).decode()


async def timed(coro_factory, writers: int) -> float:
    start = time.perf_counter()
    await asyncio.gather(*(coro_factory(w) for w in range(writers)))
    return time.perf_counter() - start


async def bench_appends(pool, writers_list, batches, total_events, repeats) -> list[tuple]:
    rows = []
    for batch in batches:
        for writers in writers_list:
            appends = max(1, total_events // (writers * batch))
            n = appends * writers * batch
            store_times, raw_times = [], []
            for r in range(repeats):
                run = f"b{batch}-c{writers}-r{r}-{uuid.uuid4().hex[:6]}"
                # Alternate which goes first so that neither always gets the warmer cache.
                order = [("store", store_writer), ("raw", raw_writer)]
                if r % 2:
                    order.reverse()
                for kind, writer in order:
                    seconds = await timed(lambda w: writer(pool, w, appends, batch, run), writers)
                    (store_times if kind == "store" else raw_times).append(seconds)
            store_rate = n / statistics.median(store_times)
            raw_rate = n / statistics.median(raw_times)
            rows.append((writers, batch, n, store_rate, raw_rate, store_rate / raw_rate))
            print(f"  append  writers={writers:>2} batch={batch:>2} events={n:>6}: "
                  f"store {store_rate:>9,.0f} ev/s   raw {raw_rate:>9,.0f} ev/s   ratio {store_rate / raw_rate:.2f}",
                  flush=True)
    return rows


async def bench_reads(pool, page: int, repeats: int) -> tuple[int, float, float]:
    async with pool.acquire() as conn:
        async def store_read() -> int:
            count, after = 0, START
            while batch := await read_all(conn, after, page):
                count += len(batch)
                after = batch[-1].checkpoint
            return count

        async def raw_read() -> int:
            count, after = 0, 0
            while batch := await conn.fetch(RAW_READ, after, page):
                count += len(batch)
                after = batch[-1]["position"]
            return count

        store_times, raw_times, count = [], [], 0
        for r in range(repeats):
            order = [(store_read, store_times), (raw_read, raw_times)]
            if r % 2:
                order.reverse()
            for read, times in order:
                start = time.perf_counter()
                count = await read()
                times.append(time.perf_counter() - start)
    return count, count / statistics.median(store_times), count / statistics.median(raw_times)


def server_url() -> tuple[str, str]:
    url = os.environ.get("DATABASE_URL")
    if url:
        return url, "PostgreSQL from DATABASE_URL"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from services.db import embedded_server
        server = embedded_server()
    return server.url, server.description


async def main(args: argparse.Namespace) -> None:
    url, description = server_url()
    async with asyncpg.create_pool(url, min_size=1, max_size=max(args.writers) + 2) as admin:
        version = await admin.fetchval("SHOW server_version")
        sync = await admin.fetchval("SHOW synchronous_commit")
    print(f"Server: {description}, PostgreSQL {version}, synchronous_commit={sync}")
    schema = f"bench_{os.getpid()}"
    setup = await asyncpg.connect(url)
    await setup.execute(f'CREATE SCHEMA "{schema}"')
    try:
        await setup.execute(f'SET search_path TO "{schema}"')
        await migrate(setup)
        await setup.execute(RAW_TABLE)
        async with await create_pool(url, min_size=max(args.writers), max_size=max(args.writers) + 2,
                                     server_settings={"search_path": schema}) as pool:
            print(f"Appends ({args.events} events per case, median of {args.repeats}):")
            appends = await bench_appends(pool, args.writers, args.batches, args.events, args.repeats)
            await setup.execute("VACUUM ANALYZE events")
            count, store_rate, raw_rate = await bench_reads(pool, args.page, args.repeats)
            print(f"Read all ({count} events, pages of {args.page}, median of {args.repeats}):")
            print(f"  read    store {store_rate:>9,.0f} ev/s   raw {raw_rate:>9,.0f} ev/s   "
                  f"ratio {store_rate / raw_rate:.2f}")
        worst = min(r[5] for r in appends)
        print(f"Targets: appends >= 0.5x raw (worst {worst:.2f}), reads >= 0.8x raw ({store_rate / raw_rate:.2f})")
    finally:
        await setup.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await setup.close()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=6400, help="events appended per case and per side")
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 8, 64], help="concurrent writers")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 40], help="events per append")
    parser.add_argument("--repeats", type=int, default=3, help="runs per case (the median is reported)")
    parser.add_argument("--page", type=int, default=1000, help="page size for read-all")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
