"""Organiser console benchmark: the endpoints an organiser's console reads, on a 10,240-team championship.

    python bench/organiser.py                          # DATABASE_URL, else the embedded server; 10,240 teams
    python bench/organiser.py --teams 1024 --requests 50
    python bench/organiser.py --profile                # and profile each endpoint whose p95 is 100 ms or more

Setup, in a scratch schema (dropped after): ``2 x --teams`` person accounts written with SQL (``users`` and
``credentials``, logins ``p00000``...; a dummy password hash: nobody signs in); an organiser (``POST /users``,
then the platform's organiser grant in SQL); a knock-out created through the API, its teams imported in ONE
request (``POST /championships/{id}/teams/import``, a CSV of ``team,player_1,player_2,club,region,rating``,
players by login), registration closed, the draw made and round 1 started (one table per match played: at
10,240 teams the bracket has 16,384 places, so round 1 is 8,192 matches of which 6,144 are byes, and 2,048
tables open). The import and the round's start are timed. The standings read model is kept by the workers'
projection runner, which is not running here (nobody plays): it is caught up once, in this process, so that
``GET .../standings`` returns every team as it would in service.

The app runs under uvicorn in ONE separate process on 127.0.0.1 (as bench/api.py: ``create_app`` with no
workers attached, the GC tuned as ``baloot serve`` tunes it), with one extra route: a bare ``@get`` returning
a small JSON document, the baseline (same app, same middleware, no authentication). The client is this
process (httpx, one keep-alive connection): for each endpoint, ``--warmup`` requests, then ``--requests``
sequential ones, timed from send to the last byte; p50/p95/p99 and the ratio of each to the baseline's,
measured before and after the endpoints (its figures are both samples together). A final line per endpoint
says whether its p95 is under 100 ms. The machine's load average is printed at the start and the end: the
machine has 2 cores shared with others, so figures are noisy.

``--profile``: afterwards, for each endpoint whose p95 is 100 ms or more, ``--profile-requests`` more requests
with cProfile on in the server process (the event loop's thread: everything it runs while enabled) and every
asyncpg query timed by its SQL text (``Connection._execute``, from sending to rows decoded); printed: each
query's calls and time per request, and the top functions by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bench.api import pct, wait_ready  # noqa: E402  (the same percentile and start-up wait as bench/api.py)
from services.cli.serve import tune_gc  # noqa: E402  (the collector as `baloot serve` sets it)

TARGET = 0.100               # p95 the console's endpoints should stay under, seconds


# ---------------------------------------------------------------- the server process


class QueryTimes:
    """Every asyncpg query's time by its SQL text, while on (the --profile phase only)."""

    on: ClassVar[bool] = False
    by_sql: ClassVar[dict[str, list[float]]] = {}

    @classmethod
    def install(cls) -> None:
        from asyncpg.connection import Connection

        execute, executemany = Connection._execute, Connection._executemany

        async def timed_execute(self, query, args, limit, timeout, **kw):
            if not cls.on:
                return await execute(self, query, args, limit, timeout, **kw)
            t = time.perf_counter()
            try:
                return await execute(self, query, args, limit, timeout, **kw)
            finally:
                cls.by_sql.setdefault(query, []).append(time.perf_counter() - t)

        async def timed_executemany(self, query, args, timeout, **kw):
            if not cls.on:
                return await executemany(self, query, args, timeout, **kw)
            t = time.perf_counter()
            try:
                return await executemany(self, query, args, timeout, **kw)
            finally:
                cls.by_sql.setdefault(query, []).append(time.perf_counter() - t)

        Connection._execute, Connection._executemany = timed_execute, timed_executemany


def serve(database_url: str, port: int, profile: bool) -> None:
    """Run in the child process: the API (no workers) plus the baseline handler, under uvicorn."""
    import cProfile
    import io
    import pstats

    import uvicorn
    from litestar import Router, get, post

    from services.api.app import create_app

    @get("/trivial", operation_id="trivial", exclude_from_auth=True, sync_to_thread=False)
    def trivial() -> dict:
        return {"ok": True, "service": "baloot-arena", "n": 1}

    handlers = [trivial]
    if profile:
        QueryTimes.install()
        current: list[cProfile.Profile] = []

        @post("/bench/profile/start", operation_id="benchProfileStart", exclude_from_auth=True,
              sync_to_thread=False, status_code=200)
        def profile_start() -> dict:
            QueryTimes.by_sql = {}
            QueryTimes.on = True
            current[:] = [cProfile.Profile()]
            current[0].enable()
            return {"ok": True}

        @post("/bench/profile/stop", operation_id="benchProfileStop", exclude_from_auth=True,
              sync_to_thread=False, status_code=200)
        def profile_stop(requests: int = 1) -> dict:
            current[0].disable()
            QueryTimes.on = False
            out = {}
            site = os.path.dirname(os.path.dirname(uvicorn.__file__)) + os.sep
            for key, restrict in (("cumulative", (r"/(services|domain|projections|litestar)/", 20)),
                                  ("tottime", (20,))):
                buf = io.StringIO()
                pstats.Stats(current[0], stream=buf).sort_stats(key).print_stats(*restrict)
                out[key] = buf.getvalue().replace(site, "").replace(f"{ROOT}{os.sep}", "")
            out["queries"] = sorted(([sql, len(ts) / requests, sum(ts) / requests * 1000, max(ts) * 1000]
                                     for sql, ts in QueryTimes.by_sql.items()), key=lambda q: -q[2])
            return out

        handlers += [profile_start, profile_stop]

    app = create_app(database_url, rate_limit=("second", 10_000_000),
                     extra_routers=(Router(path="/", route_handlers=handlers),))
    tune_gc()                                     # as `baloot serve` does
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False, timeout_keep_alive=120)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- setup


async def people(url: str, schema: str, n: int) -> list[str]:
    """``n`` person accounts written with SQL (users and credentials); their logins."""
    import asyncpg

    logins = [f"p{i:05d}" for i in range(n)]
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            await conn.copy_records_to_table("users", schema_name=schema, columns=["user_id", "name", "kind"],
                                             records=[(f"bench-{login}", f"Player {login}", "human")
                                                      for login in logins])
            await conn.copy_records_to_table("credentials", schema_name=schema,
                                             columns=["user_id", "login", "password_hash"],
                                             records=[(f"bench-{login}", login, "$dummy$not-a-hash")
                                                      for login in logins])
    finally:
        await conn.close()
    return logins


def teams_csv(logins: list[str], teams: int) -> str:
    lines = ["team,player_1,player_2,club,region,rating"]
    lines += [f"Team {t:05d},{logins[2 * t]},{logins[2 * t + 1]},Club {t % 97},Region {t % 13},{1500 + t % 400}"
              for t in range(teams)]
    return "\n".join(lines) + "\n"


async def ok(r: httpx.Response, status: int = 200) -> dict:
    if r.status_code != status:
        raise SystemExit(f"{r.request.method} {r.request.url.path}: {r.status_code} {r.text[:500]}")
    return r.json()


async def catch_up_standings(url: str) -> None:
    """What the workers' projection runner would have done: the standings read model, caught up."""
    from services.db import connect
    from services.eventstore import rebuild_projection
    from services.workers.projections import standings_read_model

    pool = await connect(url, min_size=1, max_size=2)
    try:
        await rebuild_projection(pool, standings_read_model())
    finally:
        await pool.close()


# ---------------------------------------------------------------- measuring


async def measure(client: httpx.AsyncClient, path: str, warmup: int, requests: int) -> dict:
    for _ in range(warmup):
        r = await client.get(path)
        if r.status_code != 200:
            raise SystemExit(f"GET {path}: {r.status_code} {r.text[:500]}")
    times: list[float] = []
    size = 0
    for _ in range(requests):
        t = time.perf_counter()
        r = await client.get(path)
        body = r.content
        times.append(time.perf_counter() - t)
        if r.status_code != 200:
            raise SystemExit(f"GET {path}: {r.status_code} {r.text[:500]}")
        size = len(body)
    return {"times": times, "bytes": size, "returns": returns(r.json())}


def returns(doc) -> str:
    """What a response held, in a few words (a check that it is the full-size answer)."""
    if isinstance(doc, list):
        return f"{len(doc):,} items"
    if "matches" in doc and "total" in doc:
        return f"{len(doc['matches'])} of {doc['total']:,} matches"
    if "teams" in doc:
        return f"{len(doc['teams']):,} teams"
    if "nodes" in doc:
        return f"{len(doc['nodes']):,} nodes, {len(doc['edges']):,} edges"
    return f"{len(doc)} fields"


def ratio(x: float, base: float) -> str:
    r = x / base
    return f"{r:.1f}x" if r < 10 else f"{r:.0f}x"


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} cores)"


def human_bytes(n: int) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB" if n >= 1e3 else f"{n} B"


async def profile(client: httpx.AsyncClient, path: str, requests: int, console) -> None:
    await ok(await client.post("/bench/profile/start"))
    for _ in range(requests):
        await ok(await client.get(path))
    out = await ok(await client.post("/bench/profile/stop", params={"requests": requests}))
    console.rule(f"profile: GET {path} ({requests} requests, cProfile on in the server)")
    console.print("queries per request (asyncpg, sent to rows decoded):", highlight=False)
    for sql, calls, ms, worst in out["queries"][:10]:
        console.print(f"  {calls:>5.1f} x  {ms:>8.1f} ms/request (slowest {worst:.1f} ms)  "
                      f"{' '.join(sql.split())[:150]}", highlight=False, soft_wrap=True)
    for key in ("cumulative", "tottime"):
        lines = out[key].splitlines()
        start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
        console.print(f"by {key} time ({requests} requests together):", highlight=False)
        console.print("\n".join(line for line in lines[start:] if line.strip()), highlight=False, soft_wrap=True)


async def run(args) -> None:
    import asyncpg
    from rich.console import Console
    from rich.table import Table

    from services.db import (
        create_scratch_schema,
        database_server,
        drop_schema,
        schema_url,
    )

    console = Console(width=None if sys.stdout.isatty() else 160)

    def say(text: str) -> None:
        console.print(text, highlight=False, soft_wrap=True)

    say(f"load average at start: {load_average()}")
    server_url = args.database_url or database_server().url
    schema = await create_scratch_schema(server_url, "bench_organiser")
    url = schema_url(server_url, schema)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = None
    try:
        t = time.perf_counter()
        logins = await people(server_url, schema, 2 * args.teams)
        say(f"setup: {len(logins):,} person accounts written with SQL in {time.perf_counter() - t:.1f} s")
        proc = subprocess.Popen([sys.executable, __file__, "--serve", url, "--port", str(port)]
                                + (["--profile"] if args.profile else []), cwd=ROOT)
        await wait_ready(base, proc)
        say(f"server: one uvicorn process on {base} (create_app, no workers); client: this process (httpx, "
            f"one connection, sequential requests)")
        async with httpx.AsyncClient(base_url=base, timeout=1800) as client:
            organiser = await ok(await client.post("/users", json={"name": f"bench organiser {os.urandom(3).hex()}"}), 201)
            conn = await asyncpg.connect(url)
            try:
                await conn.execute("INSERT INTO grants (scope, scope_id, user_id, role) "
                                   "VALUES ('platform', '', $1, 'organiser')", organiser["user_id"])
            finally:
                await conn.close()
            client.headers["Authorization"] = f"Bearer {organiser['token']}"
            created = await ok(await client.post("/championships", json={
                "command_id": "bench-create", "name": f"Bench Cup of {args.teams:,} teams"}), 201)
            cid = created["championship_id"]
            text = teams_csv(logins, args.teams)
            t = time.perf_counter()
            imported = await ok(await client.post(
                f"/championships/{cid}/teams/import", params={"command_id": "bench-import"},
                content=text.encode(), headers={"content-type": "text/csv"}), 201)
            import_s = time.perf_counter() - t
            say(f"setup: POST /championships/{{id}}/teams/import: {imported['teams']:,} teams "
                f"({human_bytes(len(text.encode()))} of CSV) in {import_s:.2f} s")
            t = time.perf_counter()
            await ok(await client.post(f"/championships/{cid}/registration/close", json={"command_id": "bench-close"}))
            close_s = time.perf_counter() - t
            t = time.perf_counter()
            await ok(await client.post(f"/championships/{cid}/draw", json={"command_id": "bench-draw"}))
            draw_s = time.perf_counter() - t
            say(f"setup: registration closed in {close_s:.2f} s, draw made in {draw_s:.2f} s")
            t = time.perf_counter()
            started = await ok(await client.post(f"/championships/{cid}/rounds/1/start",
                                                 json={"command_id": "bench-round-1"}))
            start_s = time.perf_counter() - t
            say(f"setup: POST /championships/{{id}}/rounds/1/start: {len(started['tables']):,} tables opened "
                f"in {start_s:.2f} s")
            t = time.perf_counter()
            await catch_up_standings(url)
            say(f"setup: the standings read model caught up (the workers' projection, run once here) in "
                f"{time.perf_counter() - t:.1f} s")

            endpoints = [                        # what the organiser's console reads
                f"/championships/{cid}/monitor",                                # the default page of 100
                f"/championships/{cid}/monitor?state=playing&limit=100",
                f"/championships/{cid}/monitor?q=Team%2005123",                 # a search
                f"/championships/{cid}/monitor?after=2000&limit=100",           # a later page
                "/championships?organised=true",
                f"/championships/{cid}",                                        # the summary, every team
                f"/championships/{cid}/matches?round=1",
                f"/championships/{cid}/bracket",
                f"/championships/{cid}/standings",
            ]
            say(f"measuring: {args.warmup} warm-up then {args.requests} sequential requests per endpoint")
            before = await measure(client, "/trivial", args.warmup, args.requests)
            results = []
            for path in endpoints:
                results.append((path, await measure(client, path, args.warmup, args.requests)))
            after = await measure(client, "/trivial", args.warmup, args.requests)
            base_times = before["times"] + after["times"]
            b50, b95, b99 = (pct(base_times, p) for p in (50, 95, 99))

            ms = 1000.0
            table = Table(title=f"GET on a {args.teams:,}-team championship, round 1 playing "
                                f"({len(started['tables']):,} tables); {args.requests} sequential requests each")
            for col in ("GET", "returns", "size", "p50 ms", "p95 ms", "p99 ms", "p50 x base", "p95 x base",
                        "p99 x base"):
                table.add_column(col, justify="left" if col in ("GET", "returns") else "right")
            table.add_row("/trivial (baseline: a bare handler)", "a small JSON document", human_bytes(before["bytes"]),
                          f"{b50 * ms:.2f}", f"{b95 * ms:.2f}", f"{b99 * ms:.2f}", "1", "1", "1", end_section=True)
            for path, r in results:
                p50, p95, p99 = (pct(r["times"], p) for p in (50, 95, 99))
                table.add_row(path.replace(cid, "{id}"), r["returns"], human_bytes(r["bytes"]),
                              f"{p50 * ms:.1f}", f"{p95 * ms:.1f}", f"{p99 * ms:.1f}", ratio(p50, b50),
                              ratio(p95, b95), ratio(p99, b99))
            console.print(table)
            say(f"baseline p50 before the endpoints {pct(before['times'], 50) * ms:.2f} ms, after "
                f"{pct(after['times'], 50) * ms:.2f} ms (its figures above: both samples together)")
            say(f"setup timings: import of {args.teams:,} teams {import_s:.2f} s; round 1 started "
                f"({len(started['tables']):,} tables) {start_s:.2f} s")
            over = []
            for path, r in results:
                p95 = pct(r["times"], 95)
                under = p95 < TARGET
                if p95 >= args.profile_over / ms:
                    over.append(path)
                say(f"GET {path.replace(cid, '{id}')}: p95 {p95 * ms:.1f} ms, "
                    f"{'under' if under else 'NOT under'} {TARGET * ms:.0f} ms")
            if args.profile:
                for path in over:
                    await profile(client, path, args.profile_requests, console)
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        await drop_schema(server_url, schema)
        say(f"load average at end: {load_average()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--teams", type=int, default=10_240, help="teams in the championship (even)")
    parser.add_argument("--requests", type=int, default=200, help="measured sequential requests per endpoint")
    parser.add_argument("--warmup", type=int, default=10, help="unmeasured requests per endpoint first")
    parser.add_argument("--profile", action="store_true",
                        help="then profile each endpoint whose p95 is 100 ms or more (cProfile and query times)")
    parser.add_argument("--profile-requests", type=int, default=10, help="requests per profiled endpoint")
    parser.add_argument("--profile-over", type=float, default=TARGET * 1000,
                        help="profile the endpoints whose p95 is at least this many ms (default 100)")
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port, args.profile)
        return
    if args.teams < 2 or args.teams % 2:
        parser.error("--teams is an even number of at least 2")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
