"""Webhooks benchmark: the outbox projection and the sender, against baselines measured in the same run.

    python bench/webhooks.py                       # DATABASE_URL, else the embedded server
    python bench/webhooks.py --championships 8 --teams 1024

Setup, in a scratch schema (dropped after): one endpoint of the organiser subscribed to every kind, then
``--championships`` finished knock-outs of ``--teams`` teams each, stored as played (tests/stored_championship).

1. The outbox (``webhooks_rm``) rebuilt from zero over that log: events per second it reads (only its kinds,
   filtered in SQL) and deliveries it queues, against the baseline of reading every event of the log raw
   (``SELECT * FROM events ORDER BY position`` through asyncpg).
2. The sender delivering every queued delivery to a receiver on loopback (a bare HTTP server in a process of
   its own that answers 200 to every POST, verifying nothing), against the baseline of posting the same
   bodies with the same client and concurrency (a line per championship, each in order) with no signing
   and no bookkeeping. The ratio is the cost of the delivery log, the order and the signature.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import asyncpg  # noqa: E402
import httpx  # noqa: E402

from bench.eventstore import server_url  # noqa: E402
from services.eventstore import rebuild_projection  # noqa: E402
from services.eventstore.migrations import migrate  # noqa: E402
from services.webhooks import endpoints  # noqa: E402
from services.webhooks.outbox import KINDS, webhooks_read_model  # noqa: E402
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
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
