"""Human-pace load: how many live tables `baloot serve` carries with p99 command latency < 50 ms.

    python bench/human_load.py                                # quick: 1 and 2 API processes, 50 then 100 tables
    python bench/human_load.py --tables 100 250 500 1000 2500 --seconds 30 --processes 3 --api-procs 1 2

Each run starts fresh ``baloot serve`` processes (the real command, pool and limits as deployed; rate limits
raised for the benchmark's sign-ups) on a scratch schema of DATABASE_URL (dropped after), with one ``baloot
worker`` process beside them on a scratch RabbitMQ virtual host (``--broker``), as deployed: run inside an API
process, the workers' periodic work (checkpoint hashing, reconciler, projections) takes the GIL from its event
loop in bursts of a second, which shows as p99 (without a broker they do run inside, and the header says so). ``baloot serve`` has no multi-process option, so N API processes are N servers on N ports sharing
the database, as behind a load balancer; the clients split the tables between them (a table and all who
follow it go to one server, as a table-sticky balancer would do; LISTEN/NOTIFY crosses processes anyway).

The load generator is ``--processes`` client processes (multiprocessing), each one asyncio loop (uvloop,
its GC tuned as the server's): one SSE connection per follower plus pooled keep-alive connections for
commands, on ``bench/lean_http.py`` (asyncio protocols whose answers httptools parses; the sign-ups before
the run use aiohttp). Not wrk + Lua: wrk cannot hold a Server-Sent Events stream open and react to what
arrives on it, which is the whole point here. Not aiohttp for the measured part: the clients share the two
cores with the server, and aiohttp cost them 1.2-1.3 ms of CPU an action (as much as the server's own), the
lean connections 0.5 ms (6 December 2026, 1,000 tables). Each client reports its CPU use and its event
loop's lag (a 100 ms ticker's overshoot), so a reader can see that the client was not the limit.

Scenario, per table: four human users sign up, one proposes the table, the three others accept; each
player follows the table on ``GET /tables/{id}/live`` (its own seat's view after each event) and, when
that view says it is his turn, thinks uniform 1-4 s, then posts one legal action chosen from his latest
view. One table in ten also has a spectator on its stream. After a warm-up, for ``--seconds``:

* command latency p50/p95/p99 (the POST /tables/{id}/commands, as the client sees it);
* stream lag: from a command's response to its last event arriving on each other follower's stream
  (an event before the response counts 0); a stream "falls behind" when lag p99 > 1 s or an event answered
  in the window has not arrived 2 s after the window;
* server CPU per action (the ``baloot serve`` processes, from /proc via psutil) and the PostgreSQL backends'
  CPU per action (the backends connected to this database); transactions per action
  (``pg_stat_database.xact_commit`` + rollbacks; every autocommitted statement is one, so this counts the
  queries of a command and its stream fan-out together, give or take a multi-statement transaction); all
  three net of the servers' idle use (in-process workers, stream polls), measured for 3 s before the clients;
* client CPU (percent of one core, the busiest client process) and loop lag p99; the whole machine's CPU.

A run passes when p99 < 50 ms, no stream falls behind and no command failed; the tables ladder stops at the
first failure and the largest passing T is printed for each number of API processes, with the CPU budget of
the first (least loaded) run: the T at which its CPU per action would fill the cores, a ceiling that a
shared machine never reaches. Beside it, the
trivial baseline: a closed loop of ``GET /health`` (a bare Litestar handler in the same app, same
middleware) from the same client processes, with its server CPU per request.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import multiprocessing as mp
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402
import psutil  # noqa: E402
import uvloop  # noqa: E402

from bench.api import choose, pct  # noqa: E402  (the same player and percentile as bench/api.py)
from bench.lean_http import HttpError, Pool, open_stream  # noqa: E402
from services.cli.serve import tune_gc  # noqa: E402  (the collector as `baloot serve` sets it)

LATENCY_TARGET = 0.050       # p99 of command latency, seconds
LAG_LIMIT = 1.0              # p99 of stream lag above this: the stream falls behind
IDLE = 3.0                   # seconds of the servers' idle use measured before each run
DRAIN = 2.0                  # seconds after the window that late events may still arrive
THINK = (1.0, 4.0)           # a human's thinking time, uniform, seconds


# ---------------------------------------------------------------- small pure helpers


class DealSeen(msgspec.Struct):
    turn: int | None = None
    legal_actions: list[dict] = []


class SeatView(msgspec.Struct):
    """What a player's loop reads of a view (the rest of it is skipped, not decoded)."""

    version: int
    status: str
    deal: DealSeen | None = None


class Accepted(msgspec.Struct):
    version: int
    view: SeatView


VIEW, ACCEPTED = msgspec.json.Decoder(SeatView), msgspec.json.Decoder(Accepted)


def my_turn(view: SeatView | None, seat: int) -> bool:
    deal = view and view.deal
    return bool(deal and deal.turn == seat and deal.legal_actions and view.status == "live")


def address(base: str) -> tuple[str, int]:
    parts = urllib.parse.urlsplit(base)
    return parts.hostname, parts.port


class Window:
    """The measured interval, in wall-clock seconds shared by every process."""

    def __init__(self, start: float, end: float):
        self.start, self.end = start, end

    def __contains__(self, t: float) -> bool:
        return self.start <= t < self.end


# ---------------------------------------------------------------- the client processes


class Follower:
    """One SSE stream: when each event (by version) arrived."""

    def __init__(self) -> None:
        self.arrived: dict[int, float] = {}
        self.latest: SeatView | None = None
        self.changed = asyncio.Event()
        self.ended = False
        self.failed = 0


class TableRecord:
    def __init__(self, base: str, table_id: str, players: list[dict], spectator: dict | None):
        self.base, self.table_id, self.players, self.spectator = base, table_id, players, spectator
        self.followers: list[Follower] = []          # seats 0-3, then the spectator
        self.answered: list[tuple[int, int, float]] = []   # (seat, version, monotonic time of the response)


class ClientStats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.slow: list[float] = []              # when (seconds into the window) each slow command was sent
        self.actions = 0
        self.errors: dict[str, int] = {}
        self.stream_events = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


async def follow(table: TableRecord, headers: dict, follower: Follower, stop: list[bool], parse: bool,
                 stats: ClientStats) -> None:
    """Read the table's live stream until it ends or the run stops, noting each event's arrival."""
    host, port = address(table.base)
    after = 0

    def on_event(name: bytes, ident: int | None, data: bytes) -> None:
        nonlocal after
        if name == b"view" and ident is not None:
            follower.arrived[ident] = time.monotonic()
            stats.stream_events += 1
            after = ident
            if parse:
                follower.latest = VIEW.decode(data)
                follower.changed.set()
        elif name == b"end":
            follower.ended = True
            follower.changed.set()

    while not stop[0] and not follower.ended:
        path = f"/tables/{table.table_id}/live" + (f"?after={after}" if after else "")
        try:
            stream, status = await open_stream(host, port, path, headers, on_event)
        except (OSError, HttpError):
            stats.error("live disconnected")
            follower.failed += 1
            await asyncio.sleep(1.0)               # back off before reconnecting (load shape, not sync)
            continue
        try:
            if status != 200:
                stats.error(f"live {status}")
                follower.failed += 1
                await asyncio.sleep(1.0)
                continue
            await stream.closed                    # the events arrive meanwhile; it ends with the table
        finally:
            stream.close()
        if not (stop[0] or follower.ended):
            stats.error("live disconnected")
            follower.failed += 1


async def play(pool: Pool, table: TableRecord, seat: int, follower: Follower, acting: list[bool], window: Window,
               rng: random.Random, stats: ClientStats) -> None:
    """A human at one seat: on his turn (from his own stream), think, then post a legal action."""
    headers = table.players[seat]["headers"]
    path = f"/tables/{table.table_id}/commands"
    acted = -1
    while acting[0] and not follower.ended:
        await follower.changed.wait()
        follower.changed.clear()
        view = follower.latest
        if not my_turn(view, seat) or view.version <= acted:
            continue
        await asyncio.sleep(rng.uniform(*THINK))       # the player's thinking time (the load's shape)
        view = follower.latest
        if not acting[0] or not my_turn(view, seat) or view.version <= acted:
            continue
        acted = view.version
        action = choose(view.deal.legal_actions, rng)
        body = msgspec.json.encode({"command_id": f"s{seat}v{acted}", "action": action, "expected_version": acted})
        sent = time.time()
        t = time.perf_counter()
        try:
            status, payload = await pool.call("POST", path, headers, body)
        except (OSError, HttpError) as exc:
            stats.error(f"command {type(exc).__name__}")
            follower.changed.set()
            continue
        dt = time.perf_counter() - t
        if sent in window:
            stats.latencies.append(dt)
            stats.actions += 1
            if dt >= LATENCY_TARGET:
                stats.slow.append(sent - window.start)
        if status != 200:
            stats.error(f"command {status}")
            try:
                fresh = VIEW.decode((await pool.call("GET", f"/tables/{table.table_id}/view", headers))[1])
            except (OSError, HttpError, msgspec.DecodeError) as exc:      # (an answer that is no view)
                stats.error(f"view {type(exc).__name__}")
            else:
                if follower.latest is None or fresh.version >= follower.latest.version:
                    follower.latest = fresh
            follower.changed.set()
            continue
        answer = ACCEPTED.decode(payload)
        if sent in window:
            table.answered.append((seat, answer.version, time.monotonic()))
        if follower.latest is None or answer.view.version > follower.latest.version:
            follower.latest = answer.view
        follower.changed.set()


async def setup_tables(session, bases: list[str], first: int, count: int, stats: ClientStats) -> list[TableRecord]:
    """Sign up four humans per table (and a spectator for one table in ten), propose, accept."""
    sem = asyncio.Semaphore(32)

    async def user(base: str, name: str) -> dict:
        async with sem, session.post(f"{base}/users", json={"name": name}) as r:
            assert r.status == 201, await r.text()
            body = await r.json()
        return {"user_id": body["user_id"], "headers": {"Authorization": f"Bearer {body['token']}"}}

    async def table(i: int) -> TableRecord:
        base = bases[i % len(bases)]
        players = [await user(base, f"load {i}.{s}") for s in range(4)]
        spectator = await user(base, f"watch {i}") if i % 10 == 0 else None
        async with sem, session.post(f"{base}/tables", json={"seats": [p["user_id"] for p in players]},
                                     headers=players[0]["headers"]) as r:
            assert r.status == 201, await r.text()
            created = await r.json()
        for p in players:
            if p["user_id"] in created["waiting"]:
                async with sem, session.post(f"{base}/tables/{created['table_id']}/accept",
                                             headers=p["headers"]) as r:
                    assert r.status == 200, await r.text()
        return TableRecord(base, created["table_id"], players, spectator)

    return list(await asyncio.gather(*(table(i) for i in range(first, first + count))))


async def loop_lag(samples: list[float], stop: list[bool], window: Window, stalls: list | None = None) -> None:
    """How late a 100 ms timer fires: a saturated client loop shows here first. ``stalls`` gets (seconds into
    the window, seconds late) of each time it was ``LATENCY_TARGET`` late or more: a command's latency as this
    client measured it may then be the client's own."""
    while not stop[0]:
        t = time.perf_counter()
        await asyncio.sleep(0.1)
        now = time.time()
        if now in window:
            late = time.perf_counter() - t - 0.1
            samples.append(late)
            if stalls is not None and late >= LATENCY_TARGET:
                stalls.append((now - late - window.start, late))


async def client_tables(cfg: dict, conn) -> None:
    import aiohttp

    stats = ClientStats()
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as session:
        tables = await setup_tables(session, cfg["bases"], cfg["first"], cfg["count"], stats)   # not measured
    conn.send(("ready", len(tables)))
    _, start, warmup, seconds = conn.recv()
    window = Window(start + warmup, start + warmup + seconds)
    await asyncio.sleep(max(0.0, start - time.time()))
    stop, acting, lags, stalls, tasks = [False], [True], [], [], []
    pools = {base: Pool(*address(base)) for base in cfg["bases"]}
    tasks.append(asyncio.create_task(loop_lag(lags, stop, window, stalls)))
    for k, t in enumerate(tables):
        for seat, p in enumerate(t.players):
            f = Follower()
            t.followers.append(f)
            rng = random.Random(cfg["seed"] * 1_000_003 + (cfg["first"] + k) * 4 + seat)
            tasks.append(asyncio.create_task(follow(t, p["headers"], f, stop, True, stats)))
            tasks.append(asyncio.create_task(play(pools[t.base], t, seat, f, acting, window, rng, stats)))
        if t.spectator is not None:
            f = Follower()
            t.followers.append(f)
            tasks.append(asyncio.create_task(follow(t, t.spectator["headers"], f, stop, False, stats)))
    await asyncio.sleep(max(0.0, window.start - time.time()))
    cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    await asyncio.sleep(max(0.0, window.end - time.time()))
    cpu1, wall1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    acting[0] = False                                 # players stop; commands in flight finish
    for t in tables:
        for f in t.followers:
            f.changed.set()
    await asyncio.sleep(DRAIN)                        # late events may still arrive (the drain window)
    stop[0] = True
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for pool in pools.values():
        pool.close()

    lag, expected, missing = [], 0, 0
    for t in tables:
        for seat, version, answered in t.answered:
            for j, f in enumerate(t.followers):
                if j == seat:
                    continue
                expected += 1
                arrived = f.arrived.get(version)
                if arrived is None:
                    missing += 1
                else:
                    lag.append(max(0.0, arrived - answered))
    conn.send(("done", {
        "latencies": stats.latencies, "slow": stats.slow, "actions": stats.actions, "errors": stats.errors,
        "stream_events": stats.stream_events, "lag": lag, "expected": expected, "missing": missing,
        "streams": sum(len(t.followers) for t in tables), "loop_lag": lags, "stalls": stalls,
        "cpu": (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime), "wall": wall1 - wall0,
    }))


async def client_trivial(cfg: dict, conn) -> None:
    latencies: list[float] = []
    pools = {base: Pool(*address(base)) for base in cfg["bases"]}
    conn.send(("ready", 0))
    _, start, warmup, seconds = conn.recv()
    window = Window(start + warmup, start + warmup + seconds)
    await asyncio.sleep(max(0.0, start - time.time()))
    stop, lags = [False], []

    async def worker(i: int) -> None:
        pool = pools[cfg["bases"][i % len(cfg["bases"])]]
        while time.time() < window.end:
            sent = time.time()
            t = time.perf_counter()
            await pool.call("GET", "/health", {})
            if sent in window:
                latencies.append(time.perf_counter() - t)

    ticker = asyncio.create_task(loop_lag(lags, stop, window))
    workers = [asyncio.create_task(worker(cfg["first"] + i)) for i in range(cfg["count"])]
    await asyncio.sleep(max(0.0, window.start - time.time()))
    cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    await asyncio.gather(*workers)
    cpu1, wall1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    stop[0] = True
    ticker.cancel()
    for pool in pools.values():
        pool.close()
    conn.send(("done", {"latencies": latencies, "actions": len(latencies), "loop_lag": lags,
                        "cpu": (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime),
                        "wall": wall1 - wall0}))


def client_main(cfg: dict, conn) -> None:
    """A client process: one asyncio loop (tables at human pace, or the trivial closed loop)."""
    run = client_tables if cfg["mode"] == "tables" else client_trivial
    # As in `baloot serve`: thousands of open streams in one process, and a full GC scan pauses its loop for
    # a tenth of a second or more, which the client would count as the server's latency.
    tune_gc()
    try:
        uvloop.run(run(cfg, conn))
    except BaseException as exc:         # tell the parent rather than leave it waiting
        conn.send(("failed", repr(exc)))
        raise


# ---------------------------------------------------------------- the server side


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(api_procs: int, server_url: str, broker_url: str | None, record: Path | None = None,
            kind: str = ".prof"):
    """A scratch schema, ``api_procs`` API processes on it and, with a broker, one ``baloot worker`` process
    (as deployed: the workers' reconciler, projections and checkpoints run beside the API, not in it, where
    they would take the GIL from its event loop); all stopped and dropped after. Yields the API processes
    and their base URLs. ``record`` and ``kind``: as ``start_servers``."""
    from bench.workers import ProcessWorkers
    from services.db import create_scratch_schema, drop_schema, schema_url

    schema = asyncio.run(create_scratch_schema(server_url, "bench_load"))
    url = schema_url(server_url, schema)
    workers = ProcessWorkers(url, broker_url, 1, 2) if broker_url else None
    try:
        procs, bases = start_servers(api_procs, url, workers.url if workers else None, record, kind)
        try:
            yield procs, bases
        finally:
            stop_servers(procs)
    finally:
        if workers is not None:
            workers.close()
        asyncio.run(drop_schema(server_url, schema))


def start_servers(n: int, database_url: str, broker_url: str | None, record: Path | None = None,
                  kind: str = ".prof") -> tuple[list[subprocess.Popen], list[str]]:
    """``n`` ``baloot serve`` processes on ``database_url``, each on its own port, once each answers /health;
    their work goes to ``broker_url`` (None: the in-process workers). With ``record`` (a directory), each
    runs under ``bench/profiled_serve.py``, which writes ``serve-<port><kind>`` there: its profile
    (``.prof``) or its pauses (``.json``)."""
    import urllib.request

    env = {**os.environ, "DATABASE_URL": database_url, "BALOOT_SECRET": "human-load-bench",
           "BALOOT_SIGNUP_LIMIT": "100000000", "BALOOT_RATE_LIMIT": "100000"}
    env.pop("BROKER_URL", None)
    if broker_url:
        env["BROKER_URL"] = broker_url
    procs, bases = [], []
    for _ in range(n):
        port = free_port()
        command = ["-m", "services.cli"] if record is None else \
            [str(ROOT / "bench" / "profiled_serve.py"), str(record / f"serve-{port}{kind}")]
        proc = subprocess.Popen([sys.executable, *command, "serve", "--port", str(port), "--log-level", "warning"],
                                cwd=ROOT, env=env, stderr=open("/tmp/serve.err", "ab"))
        procs.append(proc)
        bases.append(f"http://127.0.0.1:{port}")
        for _ in range(600):
            if proc.poll() is not None:
                raise SystemExit(f"baloot serve exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(f"{bases[-1]}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.1)                # polling a starting server
        else:
            raise SystemExit("baloot serve did not start")
    return procs, bases


def stop_servers(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def cpu_of(pids) -> dict[int, float]:
    out = {}
    for pid in pids:
        try:
            t = psutil.Process(pid).cpu_times()
            out[pid] = t.user + t.system
        except psutil.Error:
            pass
    return out


class Probe:
    """Server-side counters at the window's edges: API processes' CPU, backends' CPU, transactions."""

    def __init__(self, database_url: str, server_pids: list[int]):
        self.url, self.server_pids = database_url, server_pids

    def sample(self) -> dict:
        async def query():
            import asyncpg
            conn = await asyncpg.connect(self.url)
            try:
                await conn.execute("SELECT pg_stat_clear_snapshot()")
                xacts = await conn.fetchval("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                                            "WHERE datname = current_database()")
                pids = [r["pid"] for r in await conn.fetch(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid()")]
                wal = await conn.fetchval("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")
                try:                                                  # PostgreSQL 17 moved these counters
                    checkpoints = await conn.fetchval("SELECT num_timed + num_requested FROM pg_stat_checkpointer")
                except asyncpg.UndefinedTableError:
                    checkpoints = await conn.fetchval(
                        "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter")
            finally:
                await conn.close()
            return xacts, pids, int(wal), checkpoints

        xacts, pids, wal, checkpoints = asyncio.run(query())
        cpu = psutil.cpu_times()
        return {"xacts": xacts, "wal": wal, "checkpoints": checkpoints,
                "server": cpu_of(self.server_pids), "pg": cpu_of(pids),
                "busy": cpu.user + cpu.system + cpu.nice + cpu.irq + cpu.softirq + cpu.steal,
                "total": sum(cpu), "at": time.perf_counter(), "clock": time.time()}


def idle_rates(probe: Probe, seconds: float = IDLE) -> dict:
    """The servers' and backends' use per second with no client (workers' reconciler, stream polls)."""
    a = probe.sample()
    time.sleep(seconds)                       # an idle interval to measure, not synchronisation
    d = delta(a, probe.sample())
    return {k: d[k] / d["wall"] for k in ("xacts", "server", "pg")}


def net(d: dict, idle: dict) -> dict:
    """The window's use less what the servers would have used idle over as long."""
    out = dict(d)
    for k in ("xacts", "server", "pg"):
        out[k] = max(0.0, d[k] - idle[k] * d["wall"])
    return out


def delta(a: dict, b: dict) -> dict:
    pg = sum(v - a["pg"].get(pid, 0.0) for pid, v in b["pg"].items())
    busy = (b["busy"] - a["busy"]) / max(1e-9, b["total"] - a["total"])
    return {"xacts": b["xacts"] - a["xacts"], "server": sum(b["server"].values()) - sum(a["server"].values()),
            "server_each": [b["server"].get(p, 0) - a["server"].get(p, 0) for p in a["server"]],
            "pg": pg, "busy": busy, "wall": b["at"] - a["at"], "began": a["clock"],
            "wal": b["wal"] - a["wal"], "checkpoints": b["checkpoints"] - a["checkpoints"]}


def drive(mode: str, bases: list[str], counts: list[int], probe: Probe, warmup: float, seconds: float,
          seed: int, edges=None) -> tuple[list[dict], dict]:
    """Start one client process per entry of ``counts``, run the window, return their reports and the probe's;
    ``edges(name)`` is called at the window's "start" and "end"."""
    ctx = mp.get_context("spawn")
    procs, conns, first = [], [], 0
    for count in counts:
        parent, child = ctx.Pipe()
        cfg = {"mode": mode, "bases": bases, "first": first, "count": count, "seed": seed}
        p = ctx.Process(target=client_main, args=(cfg, child), daemon=True)
        p.start()
        procs.append(p)
        conns.append(parent)
        first += count
    try:
        for c in conns:
            kind, info = c.recv()
            if kind == "failed":
                raise SystemExit(f"a client process failed while setting up: {info}")
        start = time.time() + 0.5
        for c in conns:
            c.send(("go", start, warmup, seconds))
        time.sleep(max(0.0, start + warmup - time.time()))        # to the window's start (a clock, not sync)
        before = probe.sample()
        if edges:
            edges("start")
        time.sleep(max(0.0, start + warmup + seconds - time.time()))
        if edges:
            edges("end")
        after = probe.sample()
        reports = []
        for c in conns:
            kind, info = c.recv()
            if kind == "failed":
                raise SystemExit(f"a client process failed: {info}")
            reports.append(info)
        return reports, delta(before, after)
    finally:
        for p in procs:
            p.join(30)
            if p.is_alive():
                p.terminate()


def split(n: int, parts: int) -> list[int]:
    return [n // parts + (i < n % parts) for i in range(parts)]


# ---------------------------------------------------------------- one run, and the report


def client_summary(reports: list[dict]) -> tuple[float, float]:
    """Busiest client process's CPU (percent of one core) and the clients' worst loop-lag p99 (ms)."""
    cpu = max(r["cpu"] / max(1e-9, r["wall"]) for r in reports) * 100
    lag = max((pct(r["loop_lag"], 99) for r in reports if r["loop_lag"]), default=float("nan")) * 1000
    return cpu, lag


def limiter(client_cpu: float, server: dict) -> str:
    """Which resource ran out first, from the run's own counters (a core at 85%+ counts as saturated)."""
    per_server = max(server["server_each"] or [0.0]) / max(1e-9, server["wall"])
    if client_cpu > 85:
        return "client"
    if per_server > 0.85:
        return "server CPU (Python)"
    if server["pg"] / max(1e-9, server["wall"]) > 0.85:
        return "PostgreSQL CPU"
    if server["busy"] > 0.9:
        return "machine (2 cores shared)"
    return "-"


def others(server: dict, reports: list[dict]) -> float:
    """Cores busy outside this benchmark (other users of the machine) during the window."""
    mine = (server["server"] + server["pg"]) / max(1e-9, server["wall"]) + sum(
        r["cpu"] / max(1e-9, r["wall"]) for r in reports)
    return max(0.0, server["busy"] * psutil.cpu_count() - mine)


def trivial_run(args, api_procs: int, server_url: str) -> dict:
    with serving(api_procs, server_url, args.broker) as (procs, bases):
        probe = Probe(server_url, [p.pid for p in procs])
        idle = idle_rates(probe)
        reports, server = drive("trivial", bases, split(args.trivial_concurrency, args.processes), probe,
                                1.0, args.trivial_seconds, args.seed)
    gross, server = server, net(server, idle)
    lat = [x for r in reports for x in r["latencies"]]
    n = len(lat)
    client_cpu, loop_ms = client_summary(reports)
    return {"rps": n / args.trivial_seconds, "p50": pct(lat, 50), "p99": pct(lat, 99),
            "us": server["server"] / max(1, n) * 1e6, "client_cpu": client_cpu, "loop_ms": loop_ms,
            "busy": gross["busy"], "others": others(gross, reports), "limit": limiter(client_cpu, gross)}


def tables_run(args, api_procs: int, tables: int, server_url: str) -> dict:
    record, kind = None, (".json" if args.pauses else ".prof")
    if args.profile or args.pauses:
        record = Path(args.profile or args.pauses) / f"{api_procs}-api-{tables}-tables"
        record.mkdir(parents=True, exist_ok=True)

    def edges(name: str) -> None:                      # the profilers (or the pauses' record) on for the window only
        for p in procs:
            p.send_signal(signal.SIGUSR1 if name == "start" else signal.SIGUSR2)

    with serving(api_procs, server_url, args.broker, record, kind) as (procs, bases):
        probe = Probe(server_url, [p.pid for p in procs])
        idle = idle_rates(probe)
        reports, server = drive("tables", bases, split(tables, args.processes), probe, args.warmup,
                                args.seconds, args.seed, edges if record else None)
    gross, server = server, net(server, idle)
    lat = [x for r in reports for x in r["latencies"]]
    lag = [x for r in reports for x in r["lag"]]
    actions = sum(r["actions"] for r in reports)
    errors: dict[str, int] = {}
    for r in reports:
        for k, v in r["errors"].items():
            errors[k] = errors.get(k, 0) + v
    missing = sum(r["missing"] for r in reports)
    client_cpu, loop_ms = client_summary(reports)
    behind = missing > 0 or not lag or pct(lag, 99) > LAG_LIMIT
    p99 = pct(lat, 99)
    failed_commands = sum(v for k, v in errors.items() if k.startswith("command"))
    return {
        "tables": tables, "streams": sum(r["streams"] for r in reports), "actions": actions,
        "rate": actions / args.seconds, "p50": pct(lat, 50), "p95": pct(lat, 95), "p99": p99,
        "lag50": pct(lag, 50), "lag99": pct(lag, 99), "missing": missing,
        "expected": sum(r["expected"] for r in reports), "errors": errors,
        "server_us": server["server"] / max(1, actions) * 1e6, "pg_us": server["pg"] / max(1, actions) * 1e6,
        "xacts": server["xacts"] / max(1, actions), "client_cpu": client_cpu, "loop_ms": loop_ms,
        "busy": gross["busy"], "server_cores": gross["server"] / max(1e-9, gross["wall"]),
        "pg_cores": gross["pg"] / max(1e-9, gross["wall"]),
        "ok": actions > 0 and p99 < LATENCY_TARGET and not behind and failed_commands == 0,
        "behind": behind, "limit": limiter(client_cpu, gross), "others": others(gross, reports),
        "client_us": sum(r["cpu"] for r in reports) / max(1, actions) * 1e6,
        "slow": sorted(x for r in reports for x in r.get("slow", ())), "began": gross["began"],
        "client_stalls": sorted(x for r in reports for x in r.get("stalls", ())),
        "wal_bytes": gross["wal"] / max(1, actions), "checkpoints": gross["checkpoints"],
        "profile": None if record is None else profile_summary(record, actions) if kind == ".prof" else
        pauses_summary(record, gross["began"]),
    }


def profile_summary(directory: Path, actions: int) -> str:
    """The API processes' profiles of the window, merged: the top 10 by cumulative time, calls per action."""
    import pstats

    from bench.workers import cumulative_top

    files = sorted(str(f) for f in directory.glob("serve-*.prof"))
    if not files:
        return "    (no profile written)"
    stats = pstats.Stats(*files)
    total = sum(v[2] for v in stats.stats.values())
    head = (f"    the API processes' profile of the window: {total:.1f}s of CPU in the profiled thread, "
            f"{1e3 * total / max(1, actions):.2f} ms per action (the profiler's own cost included); "
            f"top 10 by cumulative time:")
    return "\n".join([head, *cumulative_top(stats, total, max(1, actions))])


def pauses_summary(directory: Path, began: float) -> str:
    """The API processes' pauses in the window (``bench/profiled_serve.py``): the garbage collector's
    collections and the event loop's late steps, and the seconds of the window with one of 50 ms or more."""
    files = sorted(directory.glob("serve-*.json"))
    if not files:
        return "    (no record of the pauses written)"
    collections, late, census = [], [], []
    for f in files:
        record = json.loads(f.read_text())
        collections += record["collections"]
        late += record["late"]
        census = census or record.get("census", [])
    if not (collections or late):
        return "    the API processes' pauses in the window: none (no garbage collection, no step 15 ms late)"
    young = [c for c in collections if c[1] == 0]
    older = [c for c in collections if c[1] > 0]
    lines = [(f"    the API processes' pauses in the window: {len(young)} young collections of the garbage "
              f"collector (max {max((c[2] for c in young), default=0):.1f} ms, the young generation up to "
              f"{max((c[3] for c in young), default=0):,} objects), {len(older)} older (max "
              f"{max((c[2] for c in older), default=0):.1f} ms), {sum(c[4] for c in collections):,} unreachable "
              f"objects found in all; a 10 ms timer's step ran over 15 ms late "
              f"{len(late)} times (max {max((x[1] for x in late), default=0):.1f} ms)")]
    long = {}
    for when, gen, ms, *_ in collections:
        if ms >= LATENCY_TARGET * 1e3:
            long.setdefault(int(when - began), []).append(f"gc{gen} {ms:.0f} ms")
    for when, ms in late:
        if ms >= LATENCY_TARGET * 1e3:
            long.setdefault(int(when - began), []).append(f"late {ms:.0f} ms")
    if long:
        lines.append("      pauses of 50 ms or more, by second of the window: " + ", ".join(
            f"{s}s: {' + '.join(v)}" for s, v in sorted(long.items())))
    if census:
        lines.append("      the young generation at a process's first young collection, commonest types: " + ", ".join(
            f"{name.removeprefix('builtins.')} {n:,}" for name, n in census[:12]))
    return "\n".join(lines)


def budget(r: dict, api_procs: int) -> str:
    """Where the run's CPU cost per action, at its pace per table, would fill the cores: a ceiling on T."""
    per_table = r["rate"] / r["tables"]                        # actions per second per table
    table_us = per_table * (r["server_us"] + r["pg_us"] + r["client_us"])
    machine = psutil.cpu_count() * 1e6 / max(1e-9, table_us)
    servers = api_procs * 1e6 / max(1e-9, per_table * r["server_us"])
    return (f"CPU budget at T = {r['tables']}: {per_table:.2f} actions/s per table x ({r['server_us'] / 1e3:.1f} "
            f"server + {r['pg_us'] / 1e3:.1f} PostgreSQL + {r['client_us'] / 1e3:.1f} client ms per action): "
            f"{psutil.cpu_count()} cores full at T ~ {machine:.0f}, the API process{'es' if api_procs > 1 else ''}"
            f" at one core each at T ~ {servers:.0f} (a ceiling: latency goes first on a shared machine)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, nargs="+", default=[10, 25, 50, 100],
                        help="the T ladder, tried upward until one fails (e.g. 100 250 500 1000 2500)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=10.0, help="unmeasured seconds first (streams open, "
                                                                   "first thinking times; opening 4,000 streams "
                                                                   "takes a few seconds)")
    parser.add_argument("--broker", default=os.environ.get("BROKER_URL") or "amqp://guest:guest@127.0.0.1:5672/",
                        help="RabbitMQ for the worker process beside the API processes (as deployed); "
                             "'' or unreachable: the workers run inside each API process")
    parser.add_argument("--processes", type=int, default=4,
                        help="client processes (with 2, their event loops lagged 27-73 ms at p99 at 1,250 "
                             "tables and the latencies measured with them; with 4, 8 ms)")
    parser.add_argument("--api-procs", type=int, nargs="+", default=[1, 2], help="baloot serve processes")
    parser.add_argument("--trivial-seconds", type=float, default=4.0, help="seconds of the trivial baseline "
                                                                          "(0: skip it)")
    parser.add_argument("--trivial-concurrency", type=int, default=64, help="closed-loop clients, trivial baseline")
    parser.add_argument("--all", action="store_true", help="run every T even after one fails (the cost curve)")
    parser.add_argument("--seed", type=int, default=1, help="seeds the players' thinking times and choices")
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--profile", metavar="DIR", help="cProfile the API processes during each window "
                                                         "(stats in DIR) and print their top 10")
    parser.add_argument("--pauses", metavar="DIR", help="record the API processes' pauses during each window "
                                                        "(garbage collections, late loop turns; in DIR) and "
                                                        "print them")
    args = parser.parse_args()
    if args.profile and args.pauses:
        parser.error("--profile or --pauses, not both (the profiler's cost would be counted as pauses)")

    from services.db import database_server
    from services.workers.broker import rabbitmq_reachable

    server_url = args.database_url or database_server().url
    if args.broker and not rabbitmq_reachable(args.broker):
        print(f"no RabbitMQ at {args.broker}: the workers run inside each API process", flush=True)
        args.broker = ""
    where = ("1 `baloot worker` process beside them (RabbitMQ)" if args.broker else
             "the workers inside each API process (no broker)")
    print(f"human-pace load: think {THINK[0]:g}-{THINK[1]:g} s, 4 players + 1 spectator per 10 tables on SSE; "
          f"{args.processes} client processes (asyncio, bench/lean_http.py); {psutil.cpu_count()} cores shared by all "
          f"(clients, servers, PostgreSQL): noisy", flush=True)
    best: dict[int, int | None] = {}
    for api_procs in args.api_procs:
        print(f"\n== {api_procs} API process{'es' if api_procs > 1 else ''} (`baloot serve`"
              f"{', one port each, tables split between them' if api_procs > 1 else ''}; {where})", flush=True)
        trivial = trivial_run(args, api_procs, server_url) if args.trivial_seconds > 0 else None
        if trivial:
            print(f"trivial GET /health, {args.trivial_concurrency} closed loops: {trivial['rps']:.0f} req/s, "
                  f"p50 {trivial['p50'] * 1e3:.1f} ms, p99 {trivial['p99'] * 1e3:.1f} ms, server "
                  f"{trivial['us']:.0f} us/req; busiest client {trivial['client_cpu']:.0f}% of a core, loop lag "
                  f"p99 {trivial['loop_ms']:.1f} ms; machine {trivial['busy'] * 100:.0f}% busy ({trivial['others']:.2f} "
                  f"cores by others); limit: "
                  f"{trivial['limit']}", flush=True)
        print(f"{'T':>5} {'streams':>7} {'cmds':>6} {'act/s':>6} | {'p50':>6} {'p95':>6} {'p99':>6} ms | "
              f"{'lag p50':>7} {'p99':>6} ms {'miss':>4} | {'srv us':>6} {'pg us':>6} {'xact':>5} /act"
              f"{' (x triv)' if trivial else ''} | {'srv':>4} {'pg':>4} cores | {'cli%':>4} {'loop':>5}ms "
              f"{'mach':>4} {'other':>5} | verdict", flush=True)
        best[api_procs] = None
        failed, first = False, None
        for t in args.tables:
            r = tables_run(args, api_procs, t, server_url)
            first = first or r
            ratio = f" {r['server_us'] / trivial['us']:>7.1f}x" if trivial else ""
            errs = ", ".join(f"{k}: {v}" for k, v in sorted(r["errors"].items()))
            verdict = "ok" if r["ok"] else ("FALLS BEHIND" if r["behind"] else "p99 over 50 ms"
                                            if r["p99"] >= LATENCY_TARGET else "errors")
            print(f"{t:>5} {r['streams']:>7} {r['actions']:>6} {r['rate']:>6.0f} | {r['p50'] * 1e3:>6.1f} "
                  f"{r['p95'] * 1e3:>6.1f} {r['p99'] * 1e3:>6.1f} ms | {r['lag50'] * 1e3:>7.1f} "
                  f"{r['lag99'] * 1e3:>6.0f} ms {r['missing']:>4} | {r['server_us']:>6.0f} {r['pg_us']:>6.0f} "
                  f"{r['xacts']:>5.1f} /act{ratio} | {r['server_cores']:>4.2f} {r['pg_cores']:>4.2f} cores | "
                  f"{r['client_cpu']:>4.0f} {r['loop_ms']:>5.1f}ms {r['busy'] * 100:>3.0f}% {r['others']:>5.2f} | {verdict}"
                  f"{'' if r['limit'] == '-' else ', limit: ' + r['limit']}{'; errors ' + errs if errs else ''}",
                  flush=True)
            print(f"    PostgreSQL in the window: {r['wal_bytes'] / 1e3:.1f} kB of WAL an action, {r['checkpoints']} "
                  f"checkpoint(s) begun (each writes the buffers dirtied since the last and makes the next change "
                  f"to every page log it whole: the commits' WAL flushes grow)", flush=True)
            if r["profile"]:
                print(r["profile"], flush=True)
            if r["slow"]:           # when the slow commands were sent: a burst (a pause) or spread (saturation)
                by_second = collections.Counter(int(x) for x in r["slow"])
                began = time.strftime("%H:%M:%S", time.gmtime(r["began"]))   # to match other tools' logs
                print(f"      {len(r['slow'])} commands took >= {LATENCY_TARGET * 1e3:.0f} ms; by second of the window "
                      f"(from {began} UTC): " + ", ".join(f"{k}s: {v}" for k, v in sorted(by_second.items())),
                      flush=True)
                stalls = ", ".join(f"{int(at)}s: {late * 1e3:.0f} ms" for at, late in r["client_stalls"])
                print("      the clients' own loops " + (f"ran late then: {stalls}" if stalls else
                      "were never 50 ms late (the slow commands waited on the servers or PostgreSQL)"), flush=True)
            failed = failed or not r["ok"]
            if not failed:
                best[api_procs] = t
            elif not args.all:
                break
        print(budget(first, api_procs), flush=True)
    print()
    for api_procs, t in best.items():
        top = max(args.tables)
        told = ("none of the T tried" if t is None else f"T = {t}" + (" (the largest tried; try more)"
                                                                        if t == top else ""))
        print(f"largest T with p99 < 50 ms and no stream behind, {api_procs} API process(es): {told}")


if __name__ == "__main__":
    main()
