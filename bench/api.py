"""HTTP API benchmark: N concurrent tables played by scripted clients, next to a trivial Litestar handler.

    python bench/api.py                          # DATABASE_URL, else the embedded server; 100 and 500 tables
    python bench/api.py --tables 100 --seconds 15 --trivial-seconds 8

The app runs under uvicorn in ONE separate process on 127.0.0.1, on a scratch schema (dropped after), with
one extra route: a bare ``@get`` returning a constant (same app, same middleware).  The clients run in this
process (asyncio + httpx, one connection per table).  Each table is a coroutine that plays the four seats
with their own tokens: the seat to act reads its view (legal actions), then POSTs one command; when a game
ends it opens a new table.  Reported for each N: card plays/s and all actions/s, p50/p99 of the command
POSTs; and, at the same concurrency (N client coroutines), the trivial handler's requests/s and p50/p99.
Targets: plays/s >= 0.3 x trivial requests/s; p99 < 50 ms at 100 tables.
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

import httpx  # noqa: E402


# ---------------------------------------------------------------- the server process


def serve(database_url: str, port: int, pool_size: int) -> None:
    """Run in the child process: the API plus a trivial handler, under uvicorn."""
    import uvicorn
    from litestar import Router, get

    from services.api.app import create_app

    @get("/trivial", operation_id="trivial", exclude_from_auth=True, sync_to_thread=False)
    def trivial() -> dict:
        return {"ok": True}

    app = create_app(database_url, rate_limit=("second", 10_000_000), pool_size=pool_size,
                     extra_routers=(Router(path="/", route_handlers=[trivial]),))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", backlog=4096, access_log=False,
                timeout_keep_alive=120)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- measuring


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def choose(actions: list[dict], rng: random.Random) -> dict:
    """A plausible legal action: take a bid sometimes, never double, else any legal card."""
    kind = actions[0]["type"]
    if kind == "double":
        return next((a for a in actions if a.get("call") == "pass"), actions[0])
    if kind == "bid":
        takes = [a for a in actions if a["bid"] not in ("pass", "wala", "kawesh")]
        return rng.choice(takes) if takes and rng.random() < 0.6 else actions[0]
    return rng.choice(actions)


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.plays = 0
        self.actions = 0
        self.errors = 0
        self.games = 0


async def trivial_load(base: str, concurrency: int, seconds: float) -> tuple[int, float, list[float]]:
    latencies: list[float] = []
    stop = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
        async def worker() -> None:
            while time.perf_counter() < stop:
                t = time.perf_counter()
                r = await client.get("/trivial")
                latencies.append(time.perf_counter() - t)
                assert r.status_code == 200

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
    return len(latencies), elapsed, latencies


PACE = [0.0]   # mean seconds a player thinks before acting; 0: act at once (a saturating closed loop)


async def table_player(client: httpx.AsyncClient, seats: list[tuple[str, dict]], stats: Stats, stop: float,
                       rng: random.Random, measuring: list[bool]) -> None:
    """Play games at new tables until ``stop``; a transport error counts and starts a new table."""
    while time.perf_counter() < stop:
        try:
            await play_one(client, seats, stats, stop, rng, measuring)
        except httpx.TransportError:
            stats.errors += 1


async def play_one(client, seats, stats: Stats, stop: float, rng: random.Random, measuring: list[bool]) -> None:
    """One game at a new table (until ``stop``); only actions while ``measuring[0]`` count."""
    if True:
        r = await client.post("/tables", json={"seats": [u for u, _ in seats]}, headers=seats[0][1])
        assert r.status_code == 201, r.text
        tid = r.json()["table_id"]
        for uid, headers in seats:                     # the invited players take their seats
            if uid in r.json()["waiting"]:
                assert (await client.post(f"/tables/{tid}/accept", headers=headers)).status_code == 200
        v = (await client.get(f"/tables/{tid}/view", headers=seats[0][1])).json()
        n = 0
        while v["phase"] != "ended" and time.perf_counter() < stop:
            turn = v["deal"]["turn"]
            mine = (await client.get(f"/tables/{tid}/view", headers=seats[turn][1])).json()
            action = choose(mine["deal"]["legal_actions"], rng)
            if PACE[0]:
                await asyncio.sleep(rng.uniform(0.5, 1.5) * PACE[0])   # a player's thinking time (load shape)
            n += 1
            t = time.perf_counter()
            r = await client.post(f"/tables/{tid}/commands", headers=seats[turn][1],
                                  json={"command_id": f"b{n}", "action": action})
            dt = time.perf_counter() - t
            if r.status_code != 200:
                stats.errors += 1
                v = (await client.get(f"/tables/{tid}/view", headers=seats[0][1])).json()
                continue
            if measuring[0]:
                stats.latencies.append(dt)
                stats.actions += 1
                stats.plays += action["type"] == "play"
            v = r.json()["view"]
        if v["phase"] == "ended":
            stats.games += 1


async def tables_load(base: str, tables: int, seconds: float, warmup: float) -> tuple[Stats, float]:
    limits = httpx.Limits(max_connections=tables, max_keepalive_connections=tables)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as client:
        async def user(i: int) -> tuple[str, dict]:
            r = await client.post("/users", json={"name": f"bench {i} {os.getpid()}-{random.getrandbits(24):x}"})
            body = r.json()
            return body["user_id"], {"Authorization": f"Bearer {body['token']}"}

        users = []
        for chunk in range(0, 4 * tables, 200):
            users += await asyncio.gather(*(user(i) for i in range(chunk, min(4 * tables, chunk + 200))))
        stats = Stats()
        measuring = [False]
        stop = time.perf_counter() + warmup + seconds
        tasks = [asyncio.create_task(table_player(client, users[4 * i:4 * i + 4], stats, stop,
                                                  random.Random(i), measuring)) for i in range(tables)]
        await asyncio.sleep(warmup)          # the benchmark's warm-up window, not synchronisation
        measuring[0] = True
        start = time.perf_counter()
        await asyncio.gather(*tasks)
        return stats, time.perf_counter() - start


async def wait_ready(base: str, proc: subprocess.Popen) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=2) as client:
        for _ in range(300):
            if proc.poll() is not None:
                raise SystemExit(f"the server exited with {proc.returncode}")
            try:
                if (await client.get("/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)         # polling a starting server
    raise SystemExit("the server did not start")


async def run(args) -> None:
    from services.db import create_scratch_schema, database_server, drop_schema, schema_url

    server_url = args.database_url or database_server().url
    schema = await create_scratch_schema(server_url, "bench_api")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, __file__, "--serve", schema_url(server_url, schema),
                             "--port", str(port), "--pool-size", str(args.pool_size)], cwd=ROOT)
    try:
        await wait_ready(base, proc)
        print(f"server: one uvicorn process on {base}, pool {args.pool_size}; clients: this process (httpx)")
        print(f"{'tables':>6} | {'plays/s':>8} {'actions/s':>9} {'cmd p50':>8} {'cmd p99':>8} {'err':>4} "
              f"{'games':>5} | {'trivial/s':>9} {'p50':>7} {'p99':>7} | {'plays/trivial':>13} {'actions/trivial':>15}")
        for n in args.tables:
            count, elapsed, lat = await trivial_load(base, n, args.trivial_seconds)
            trivial_rps = count / elapsed
            stats, t_elapsed = await tables_load(base, n, args.seconds, args.warmup)
            plays_s = stats.plays / t_elapsed
            actions_s = stats.actions / t_elapsed
            ms = 1000.0
            print(f"{n:>6} | {plays_s:>8.0f} {actions_s:>9.0f} {pct(stats.latencies, 50) * ms:>6.1f}ms "
                  f"{pct(stats.latencies, 99) * ms:>6.1f}ms {stats.errors:>4} {stats.games:>5} | "
                  f"{trivial_rps:>9.0f} {pct(lat, 50) * ms:>5.1f}ms {pct(lat, 99) * ms:>5.1f}ms | "
                  f"{plays_s / trivial_rps:>13.2f} {actions_s / trivial_rps:>15.2f}", flush=True)
            if n == 100:
                p99 = pct(stats.latencies, 99) * ms
                print(f"       target at 100 tables: p99 < 50 ms -> {'met' if p99 < 50 else 'NOT met'} "
                      f"({p99:.1f} ms); plays/s >= 0.3 x trivial -> "
                      f"{'met' if plays_s >= 0.3 * trivial_rps else 'NOT met'} ({plays_s / trivial_rps:.2f}x)")
            elif n:
                print(f"       plays/s >= 0.3 x trivial at {n} tables -> "
                      f"{'met' if plays_s >= 0.3 * trivial_rps else 'NOT met'} ({plays_s / trivial_rps:.2f}x)")
    finally:
        proc.terminate()
        proc.wait(30)
        await drop_schema(server_url, schema)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, nargs="+", default=[100, 500], help="concurrent tables per run")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds of play per run")
    parser.add_argument("--warmup", type=float, default=3.0, help="unmeasured seconds of play first")
    parser.add_argument("--trivial-seconds", type=float, default=8.0, help="seconds of the trivial handler")
    parser.add_argument("--pace", type=float, default=0.0,
                        help="mean thinking time per action in seconds (0: as fast as the server answers)")
    parser.add_argument("--pool-size", type=int, default=20, help="the server's asyncpg pool size")
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    PACE[0] = args.pace
    if args.serve:
        serve(args.serve, args.port, args.pool_size)
        return
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
