"""Webhooks benchmark: the outbox projection and the sender, against baselines measured in the same run; and
a healthy endpoint's delivery latency with and without a dripping receiver beside it.

    python bench/webhooks.py                       # DATABASE_URL, else the embedded server
    python bench/webhooks.py --championships 8 --teams 1024
    python bench/webhooks.py --part drip --drip-seconds 30     # only the third part

Setup, in a scratch schema (dropped after): one endpoint of the organiser subscribed to every kind, then
``--championships`` finished knock-outs of ``--teams`` teams each, stored as played (tests/stored_championship).

1. The outbox (``webhooks_rm``) rebuilt from zero over that log: events per second it reads (only its kinds,
   filtered in SQL) and deliveries it queues, against the baseline of reading every event of the log raw
   (``SELECT * FROM events ORDER BY position`` through asyncpg).
2. The sender delivering every queued delivery to a receiver on loopback (a bare HTTP server in a process of
   its own that answers 200 to every POST, verifying nothing), against the baseline of posting the same
   bodies with the same client and concurrency (a line per championship, each in order) with no signing
   and no bookkeeping. The ratio is the cost of the delivery log, the order and the signature.
3. A slow neighbour (the review's item 6): the sender running as in a worker (``run()``, the default schedule:
   the 10 s whole-attempt deadline) while an organiser's endpoint is sent a delivery every ``--spacing``
   seconds for ``--drip-seconds`` seconds, each timed from its queueing (committed and notified) to its
   delivery recorded; once alone, once beside another organiser's endpoint whose receiver answers one byte a
   second, forever (three deliveries queued for it first: its line is in flight, failing at each deadline,
   retried after its backoff, for the whole run). The figures: the healthy endpoint's median, 95th percentile
   and worst latency in each run and their ratios (with / without; 1 is no harm done), and what became of the
   dripping receiver's attempts.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import asyncpg  # noqa: E402
import httpx  # noqa: E402

from bench.eventstore import server_url  # noqa: E402
from services.eventstore import rebuild_projection  # noqa: E402
from services.eventstore.migrations import migrate  # noqa: E402
from services.webhooks import endpoints  # noqa: E402
from services.webhooks.outbox import CHANNEL, KINDS, webhooks_read_model  # noqa: E402
from services.webhooks.sender import Retry, WebhookSender  # noqa: E402
from tests.stored_championship import knock_out  # noqa: E402

RECEIVER = """
import asyncio, sys
async def answer(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\\r\\n\\r\\n")
            length = next((int(l.split(b":")[1]) for l in head.split(b"\\r\\n") if l.lower().startswith(b"content-length")), 0)
            await reader.readexactly(length)
            writer.write(b"HTTP/1.1 200 OK\\r\\ncontent-length: 0\\r\\n\\r\\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()
async def main():
    server = await asyncio.start_server(answer, "127.0.0.1", int(sys.argv[1]))
    await server.serve_forever()
asyncio.run(main())
"""


DRIP = """
import asyncio, itertools, sys
async def answer(reader, writer):
    try:
        head = await reader.readuntil(b"\\r\\n\\r\\n")
        length = next((int(l.split(b":")[1]) for l in head.split(b"\\r\\n") if l.lower().startswith(b"content-length")), 0)
        await reader.readexactly(length)
        for byte in itertools.chain(b"HTTP/1.1 200 OK\\r\\nx-drip: ", itertools.repeat(97)):
            if reader.at_eof():
                break
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(float(sys.argv[2]))
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    writer.close()
async def main():
    server = await asyncio.start_server(answer, "127.0.0.1", int(sys.argv[1]))
    await server.serve_forever()
asyncio.run(main())
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def baseline_posts(url: str, lines: list[list[str]], concurrency: int) -> float:
    async with httpx.AsyncClient() as client:
        gate = asyncio.Semaphore(concurrency)

        async def line(bodies):
            async with gate:
                for body in bodies:
                    (await client.post(url, content=body, headers={"content-type": "application/json"})).raise_for_status()

        start = time.perf_counter()
        await asyncio.gather(*map(line, lines))
        return time.perf_counter() - start


async def healthy_latencies(pool, healthy: str, seconds: float, spacing: float, line: str) -> list[float]:
    """The latencies (s) of deliveries queued for the endpoint ``healthy`` one every ``spacing`` seconds for
    ``seconds``, each in championship ``line``'s line, sent by a sender running as in a worker."""
    queued: dict[str, float] = {}
    latencies: list[float] = []
    done = asyncio.Event()
    n = max(1, round(seconds / spacing))

    def observe(head, ok: bool) -> None:
        if ok and head["endpoint_id"] == healthy:
            latencies.append(time.perf_counter() - queued[str(head["event_id"])])
            if len(latencies) == n:
                done.set()

    sender = WebhookSender(pool, Retry(), rng=random.Random(1), observe=observe)
    running = asyncio.create_task(sender.run())
    try:
        start = time.perf_counter()
        for k in range(n):
            await asyncio.sleep(max(0.0, start + k * spacing - time.perf_counter()))     # the load's pace
            event_id = str(uuid.uuid4())
            queued[event_id] = time.perf_counter()
            await queue_one(pool, healthy, event_id, line)
        async with asyncio.timeout(120):
            await done.wait()
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        await sender.close()
    return latencies


async def queue_one(pool, endpoint_id: str, event_id: str, line: str) -> None:
    """A delivery queued as the outbox queues one (the row, then the sender notified), with a small payload."""
    body = f'{{"type":"match.ended","timestamp":"2026-12-06T18:00:00+00:00","data":{{"championship_id":"{line}"}}}}'
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("INSERT INTO webhook_deliveries (endpoint_id, event_id, position, championship_id, kind, "
                           "payload) VALUES ($1, $2, 0, $3, "
                           "'match.ended', $4)", endpoint_id, event_id, line, body)
        await conn.execute("SELECT pg_notify($1, '')", CHANNEL)


def figures(latencies: list[float]) -> tuple[float, float, float]:
    ordered = sorted(latencies)
    return (statistics.median(ordered) * 1e3, ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1e3,
            ordered[-1] * 1e3)


async def slow_neighbour(pool, healthy_url: str, args) -> None:
    """Part 3: the healthy endpoint's latency without, then with, a dripping receiver beside it."""
    drip_port = free_port()
    drip = subprocess.Popen([sys.executable, "-c", DRIP, str(drip_port), str(args.drip_interval)])
    try:
        for owner in ("healthy-club", "drip-club"):
            await pool.execute("INSERT INTO users (user_id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING", owner)
        healthy, _ = await endpoints.register(pool, "healthy-club", healthy_url, list(KINDS), None)
        await wait_listening(drip_port)
        alone = await healthy_latencies(pool, healthy.endpoint_id, args.drip_seconds, args.spacing, "alone")

        dripping, _ = await endpoints.register(pool, "drip-club", f"http://127.0.0.1:{drip_port}/hook", list(KINDS),
                                               None)
        for _ in range(3):
            await queue_one(pool, dripping.endpoint_id, str(uuid.uuid4()), "dripping")
        beside = await healthy_latencies(pool, healthy.endpoint_id, args.drip_seconds, args.spacing, "beside")
        tried = await pool.fetch("SELECT a.error, a.duration_ms FROM webhook_attempts a JOIN webhook_deliveries d "
                                 "USING (delivery_id) WHERE d.endpoint_id = $1 ORDER BY a.attempted_at",
                                 dripping.endpoint_id)
    finally:
        drip.kill()
        drip.wait()
        # Nothing left for parts 1 and 2: the dripping endpoint's deliveries would stay pending for ever.
        await pool.execute("DELETE FROM webhook_endpoints WHERE owner IN ('healthy-club', 'drip-club')")
    (m0, p0, w0), (m1, p1, w1) = figures(alone), figures(beside)
    print(f"Slow neighbour: {len(alone)} deliveries to a healthy endpoint, one every {args.spacing:g} s for "
          f"{args.drip_seconds:g} s, queued to delivered (the default schedule: {Retry().timeout:g} s deadline)")
    beside_label = f"beside a 1 byte/{args.drip_interval:g} s drip:"
    for label, (m, p, w) in (("alone:", (m0, p0, w0)), (beside_label, (m1, p1, w1))):
        print(f"  {label:<30} median {m:7.1f} ms, p95 {p:7.1f} ms, worst {w:7.1f} ms")
    print(f"  {'ratio beside/alone:':<30} median {m1 / m0:7.2f},    p95 {p1 / p0:7.2f},    worst {w1 / w0:7.2f}")
    errors = sorted({r["error"] for r in tried})
    durations = ", ".join(f"{r['duration_ms'] / 1e3:.2f} s" for r in tried)
    print(f"  the dripping receiver: {len(tried)} attempts ended meanwhile ({durations or 'none'}): "
          f"{'; '.join(errors) or 'none'}")


async def wait_listening(port: int) -> None:
    for _ in range(500):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.02)
    raise RuntimeError(f"nothing listens on port {port}")


async def main(args) -> None:
    url, description = server_url()
    os.environ["BALOOT_WEBHOOK_ALLOW"] = "127.0.0.1/32"
    schema = f"bench_webhooks_{os.getpid()}"
    admin = await asyncpg.connect(url)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    port = free_port()
    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER, str(port)])
    print(f"Server: {description}; load average {os.getloadavg()[0]:.2f}")
    try:
        async with asyncpg.create_pool(url, min_size=2, max_size=12, server_settings={"search_path": schema}) as pool:
            await migrate(pool)
            await wait_listening(port)
            if args.part in ("all", "drip"):
                await slow_neighbour(pool, f"http://127.0.0.1:{port}/hook", args)
            if args.part == "drip":
                return
            await pool.execute("INSERT INTO users (user_id, name) VALUES ('organiser', 'organiser')")
            await endpoints.register(pool, "organiser", f"http://127.0.0.1:{port}/hook", list(KINDS), None)
            formats = ("single_elimination", "double_elimination", "swiss", "groups_knockout")
            for k in range(args.championships):
                await knock_out(pool, args.teams + k, formats[k % len(formats)])   # distinct ids
            total = await pool.fetchval("SELECT count(*) FROM events")

            start = time.perf_counter()
            raw = len(await pool.fetch("SELECT * FROM events ORDER BY position"))
            raw_s = time.perf_counter() - start
            start = time.perf_counter()
            await rebuild_projection(pool, webhooks_read_model())
            outbox_s = time.perf_counter() - start
            queued = await pool.fetchval("SELECT count(*) FROM webhook_deliveries")
            print(f"Outbox over {total:,} events ({args.championships} championships of ~{args.teams} teams): "
                  f"{outbox_s:.2f} s, {total / outbox_s:,.0f} events/s, {queued:,} deliveries queued "
                  f"({queued / outbox_s:,.0f}/s); raw read of the log {raw / raw_s:,.0f} events/s; "
                  f"ratio {(total / outbox_s) / (raw / raw_s):.2f}")

            rows = await pool.fetch("SELECT championship_id, payload FROM webhook_deliveries ORDER BY position")
            lines: dict[str, list[str]] = {}
            for r in rows:
                lines.setdefault(r["championship_id"], []).append(r["payload"])
            base_s = await baseline_posts(f"http://127.0.0.1:{port}/hook", list(lines.values()), 8)
            sender = WebhookSender(pool, Retry(), rng=random.Random(1), burst=10 ** 9)
            start = time.perf_counter()
            try:
                while await pool.fetchval("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'"):
                    await sender.run_once()
            finally:
                await sender.close()
            send_s = time.perf_counter() - start
            print(f"Sender: {queued:,} deliveries in {send_s:.2f} s, {queued / send_s:,.0f}/s "
                  f"({send_s / queued * 1e3:.2f} ms each, {len(lines)} lines in order); bare POSTs of the same bodies "
                  f"{queued / base_s:,.0f}/s; ratio {base_s / send_s:.2f}")
            print(f"Load average at the end {os.getloadavg()[0]:.2f}")
    finally:
        receiver.kill()
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--championships", type=int, default=4)
    parser.add_argument("--teams", type=int, default=1024)
    parser.add_argument("--part", choices=("all", "throughput", "drip"), default="all",
                        help="throughput: parts 1 and 2; drip: part 3 (the slow neighbour)")
    parser.add_argument("--drip-seconds", type=float, default=30.0, help="part 3: how long each run queues")
    parser.add_argument("--spacing", type=float, default=0.2, help="part 3: seconds between healthy deliveries")
    parser.add_argument("--drip-interval", type=float, default=1.0, help="part 3: seconds between dripped bytes")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
