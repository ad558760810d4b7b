"""Worker benchmark: bot actions per second end to end, and a 256-team all-bot knock-out from draw to champion.

    python bench/workers.py                       # DATABASE_URL (else the embedded server), BROKER_URL
    python bench/workers.py --tables 32 --seconds 20 --teams 256 --target 152 --drive auto
    python bench/workers.py --profile             # also cProfile the actor path (where a worker's CPU goes)
    python bench/workers.py --level expert --skip-knockout   # what seating experts costs the workers

1. Bot actions per second: ``--tables`` all-bot tables (normal bots, or ``--level``'s) are opened with nothing enqueued;
   worker processes (``baloot worker`` on RabbitMQ when it answers at BROKER_URL, default the local
   server; else a dramatiq Worker in this process with 1 and 2 threads, and it says so) find them through
   the reconciler and play. An action is one ``bot:<version>`` command (one bid, double or card, decided
   on its seat's view); a worker stores a run of them, to the deal's end, in one append. The rate is
   actions / (last action - first action), from the stored events' times; the latency is the median
   time between one table's successive appends. Cost per action: the worker processes' CPU after their
   start-up, the database backends' CPU, and queries (the database's transactions, pg_stat_database),
   each divided by the actions; events/s is set against raw asyncpg appends of 40 events (the
   baseline, measured in the same run).
2. A knock-out of ``--teams`` all-bot teams, one game per match (to ``--target``), timed from the draw to
   the champion. ``--drive auto``: the championship runs itself (a round-1 slot now, the workers'
   schedules); if it makes no progress for 60 s the bench drives the remaining rounds itself through
   ChampionshipService (start round, open tables, collect results, finish), and says so. ``--drive bench``
   drives from the start.

Everything runs in a scratch schema (dropped after) and, on RabbitMQ, a scratch virtual host.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg  # noqa: E402

from domain.baloot.bots import LEVELS  # noqa: E402
from domain.baloot.profiles import SAUDI  # noqa: E402
from services.tables import TableOpened  # noqa: E402
from services.platform import Platform  # noqa: E402
from services.db import create_scratch_schema, drop_schema, schema_url  # noqa: E402
from services.workers.baselines import append_rate, in_memory_rate  # noqa: E402
from services.workers.rehearsal import NO_ANALYSIS, stop_worker  # noqa: E402

BALOOT = str(Path(sys.executable).with_name("baloot"))
DEFAULT_BROKER = "amqp://guest:guest@127.0.0.1:5672/"


# ------------------------------------------------------------------ workers


class ProcessWorkers:
    """``baloot worker --processes N`` on a scratch RabbitMQ virtual host."""

    def __init__(self, database_url: str, broker_url: str, processes: int, threads: int):
        self.vhost = None
        url = broker_url
        if shutil.which("rabbitmqctl") and broker_url.rstrip("/").count("/") == 2:
            self.vhost = f"baloot-bench-{uuid.uuid4().hex[:8]}"
            subprocess.run(["rabbitmqctl", "add_vhost", self.vhost], check=True, capture_output=True)
            subprocess.run(["rabbitmqctl", "set_permissions", "-p", self.vhost, "guest", ".*", ".*", ".*"],
                           check=True, capture_output=True)
            url = f"{broker_url.rstrip('/')}/{self.vhost}"
        self.url = url
        self.log = Path(tempfile.mkstemp(prefix="baloot-bench-worker-", suffix=".log")[1])
        # Play alone is measured: the fair-play analysis stays queued (as in the rehearsal, NO_ANALYSIS).
        env = dict(os.environ, DATABASE_URL=database_url, BROKER_URL=url, BALOOT_RECONCILE_SECONDS="1",
                   BALOOT_LOG_LEVEL="WARNING", **NO_ANALYSIS)
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen([BALOOT, "worker", "--processes", str(processes), "--threads",
                                          str(threads)], env=env, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        self.where = f"{processes} `baloot worker` process(es) x {threads} threads on RabbitMQ"

    def pids(self) -> list[int]:
        return [self.proc.pid]              # py-spy follows its worker subprocesses

    def cpu(self) -> float:
        """CPU seconds of the worker processes so far (the dramatiq parent and its worker subprocesses)."""
        return group_cpu(self.proc.pid)

    def check(self) -> None:
        if self.proc.poll() is not None:
            raise SystemExit(f"the worker exited:\n{self.log.read_text()[-3000:]}")

    def close(self) -> None:
        stop_worker(self.proc, 15)
        if self.vhost:
            subprocess.run(["rabbitmqctl", "delete_vhost", self.vhost], capture_output=True)
        self.log.unlink(missing_ok=True)


class ThreadWorkers:
    """The fallback: the actors on the in-process broker, a dramatiq Worker with ``threads`` threads."""

    def __init__(self, database_url: str, threads: int):
        from dramatiq import Worker

        from services.workers.entry import build
        self.broker, self.workers, _ = build(database_url, "", reconcile_every=1.0)
        self.worker = Worker(self.broker, worker_threads=threads, worker_timeout=50)
        self.worker.start()
        self.where = f"in-process broker, 1 process x {threads} thread(s) (RabbitMQ not reachable)"

    def pids(self) -> list[int]:
        return []

    def check(self) -> None:
        pass

    def close(self) -> None:
        self.worker.stop()


def start_workers(database_url: str, broker_url: str | None, processes: int, threads: int):
    if broker_url:
        return ProcessWorkers(database_url, broker_url, processes, threads)
    return ThreadWorkers(database_url, processes)        # 1 and 2 threads stand for 1 and 2 processes


# ------------------------------------------------------------------ scratch database


class Scratch:
    def __init__(self, server_url: str):
        self.server_url = server_url

    async def __aenter__(self):
        self.schema = await create_scratch_schema(self.server_url, "bench")
        self.url = schema_url(self.server_url, self.schema)
        self.pool = await asyncpg.create_pool(self.url, min_size=1, max_size=8,
                                              server_settings={"application_name": "bench"})
        self.platform = await Platform.on(self.pool)
        self.tables = self.platform.tables
        return self

    async def __aexit__(self, *exc):
        await self.pool.close()
        await drop_schema(self.server_url, self.schema)


async def add_bots(pool, n: int) -> list[str]:
    ids = [f"bot{i:04d}" for i in range(n)]
    await pool.executemany("INSERT INTO users (user_id, name, kind) VALUES ($1, $1, 'bot') ON CONFLICT DO NOTHING",
                           [(i,) for i in ids])
    return ids


# ------------------------------------------------------------------ cost: CPU and queries

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process so far, from /proc (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def group_cpu(pgid: int) -> float:
    """CPU seconds of every live process in process group ``pgid`` (a worker and its subprocesses)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.getpgid(int(entry.name)) == pgid:
                    total += proc_cpu(int(entry.name))
            except OSError:
                pass
    return total


async def backend_cpu(pool) -> float:
    """CPU seconds of this database's server backends other than the bench's own (the workers' queries)."""
    pids = await pool.fetch("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                            "AND backend_type = 'client backend' AND application_name <> 'bench'")
    return sum(proc_cpu(r["pid"]) for r in pids)


async def transactions(pool) -> int:
    """Committed and rolled-back transactions of this database so far (each query outside an explicit
    transaction is one); closed backends have flushed theirs."""
    await pool.execute("SELECT pg_stat_clear_snapshot()")
    return await pool.fetchval("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                               "WHERE datname = current_database()")


# ------------------------------------------------------------------ 1. actions per second

BOT_ACTIONS = """
SELECT stream_id, recorded_at FROM events
 WHERE metadata->>'command_id' LIKE 'bot:%'
   AND version = split_part(metadata->>'command_id', ':', 2)::int + 1      -- each action's first event
 ORDER BY stream_id, recorded_at"""


async def actions_per_second(server_url: str, broker_url: str | None, processes: int, threads: int,
                             n_tables: int, seconds: float, level: str = "normal") -> dict:
    async with Scratch(server_url) as db:
        [bot] = await add_bots(db.pool, 1)
        for i in range(n_tables):
            await db.tables.open_table(TableOpened(table_id=f"t{i}", seats=(bot,) * 4, profile=SAUDI,
                                                   bots=(level,) * 4))
        events_before = await db.pool.fetchval("SELECT count(*) FROM events")
        xacts_before = await transactions(db.pool)
        cpu_before = time.process_time()
        workers = start_workers(db.url, broker_url, processes, threads)
        cpu_now = workers.cpu if workers.pids() else time.process_time
        booted = None                   # (worker CPU, events) once the workers stored their first events
        try:
            start = time.monotonic()
            while time.monotonic() - start < seconds:
                workers.check()
                live = await db.pool.fetchval("SELECT count(*) FROM tables_index WHERE status = 'live'")
                if not live:
                    break
                if booted is None:
                    stored = await db.pool.fetchval("SELECT count(*) FROM events")
                    if stored > events_before:
                        booted = (cpu_now(), stored)
                await asyncio.sleep(0.25)      # a bounded look at another process's progress
            worker_cpu = cpu_now() - (booted[0] if booted else (0.0 if workers.pids() else cpu_before))
            db_cpu = await backend_cpu(db.pool)
        finally:
            workers.close()
        rows = await db.pool.fetch(BOT_ACTIONS)
        events = await db.pool.fetchval("SELECT count(*) FROM events") - events_before
        # the steady state: the worker's CPU from its first stored events on (its start-up left out)
        steady = len(rows) * (events - ((booted[1] - events_before) if booted else 0)) / max(events, 1)
        appends = await db.pool.fetchval("SELECT count(DISTINCT tx_id) FROM events WHERE metadata->>'command_id' "
                                         "LIKE 'bot:%'")
        xacts = await transactions(db.pool) - xacts_before
        baseline = await append_rate(db.pool, min(events, 20000))
    if len(rows) < 2:
        raise SystemExit(f"no bot actions were stored ({workers.where})")
    times = [r["recorded_at"] for r in rows]
    span = (max(times) - min(times)).total_seconds()
    gaps = []
    for a, b in zip(rows, rows[1:]):
        if a["stream_id"] == b["stream_id"] and b["recorded_at"] != a["recorded_at"]:
            gaps.append((b["recorded_at"] - a["recorded_at"]).total_seconds())
    n = len(rows)
    return dict(where=workers.where, actions=n, span=span, rate=n / span, events=events, event_rate=events / span,
                appends=appends, baseline=baseline, cpu_us=1e6 * worker_cpu / max(steady, 1), db_cpu_us=1e6 * db_cpu / n,
                queries=xacts / n,
                latency_ms=1000 * statistics.median(gaps) if gaps else 0.0,
                p95_ms=1000 * statistics.quantiles(gaps, n=20)[-1] if len(gaps) > 1 else 0.0)


async def profile_actions(server_url: str, n_tables: int = 8, actions: int = 1500) -> str:
    """cProfile of the actor path in this process (load, decide, bot, append, followup send) on the stub broker."""
    import cProfile
    import pstats

    from services.workers.actors import Workers
    from services.workers.broker import make_broker
    from services.tables.pending import pending_work

    async with Scratch(server_url) as db:
        [bot] = await add_bots(db.pool, 1)
        for i in range(n_tables):
            await db.tables.open_table(TableOpened(table_id=f"p{i}", seats=(bot,) * 4, profile=SAUDI,
                                                   bots=("normal",) * 4))
        broker, _ = make_broker("")
        workers = Workers(broker, db.url)
        runtime = workers.runtime
        svc = await runtime.tables()

        async def one(table_id: str) -> int:
            n = 0
            while n < actions // n_tables:
                work = pending_work(await svc.load(table_id))
                if work is None:
                    break
                await workers.play_bot_turn(table_id, work.version)
                n += 1
            return n

        prof = cProfile.Profile()
        t = time.perf_counter()
        prof.enable()
        messages = sum(await asyncio.gather(*(one(f"p{i}") for i in range(n_tables))))
        prof.disable()
        wall = time.perf_counter() - t
        done = await db.pool.fetchval(          # bot actions: a message plays runs of them (to CHAIN deals)
            "SELECT count(DISTINCT (stream_id, metadata->>'command_id')) FROM events "
            "WHERE metadata->>'command_id' LIKE 'bot:%'")
        await runtime.close()
    stats = pstats.Stats(prof)
    total = sum(v[2] for v in stats.stats.values())           # own time of every function
    groups: dict[str, float] = {}
    for (file, _, name), (_, _, own, _, _) in stats.stats.items():
        if "asyncpg" in file:
            key = "asyncpg (protocol, records)"
        elif "/domain/bots" in file:
            key = "bot decisions (domain/baloot/bots.py)"
        elif "/domain/" in file:
            key = "rules engine: decide/evolve/views (domain/)"
        elif "msgspec" in file or name in ("encode", "decode") or "codec" in file:
            key = "encode/decode events (msgspec, codec)"
        elif "dramatiq" in file or "pika" in file or "threading" in file or "thread.py" in file:
            key = "broker send (dramatiq, to_thread)"
        elif "/services/" in file:
            key = "services (tables, event store, workers)"
        elif "asyncio" in file or "selectors" in file or name.startswith("<method 'poll'"):
            key = "event loop / waiting on I/O"
        else:
            key = "other"
        groups[key] = groups.get(key, 0.0) + own
    lines = [f"    {done} bot actions ({messages} messages) in {wall:.2f}s on one event loop = {done / wall:.0f}/s; "
             f"CPU in this process {total:.2f}s ({1e6 * total / done:.0f} us per action, the profiler's own cost "
             f"included):"]
    lines += [f"    {100 * v / total:5.1f}%  {k}" for k, v in sorted(groups.items(), key=lambda kv: -kv[1])]
    lines.append("    hottest functions (own time):")
    top = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:10]
    lines += [f"    {100 * own / total:5.1f}%  {Path(file).name}:{line} {name} ({calls / done:.1f} calls per action)"
              for (file, line, name), (_, calls, own, _, _) in top]
    lines.append("    top 10 by cumulative time (a coroutine's is counted at each resumption):")
    lines += cumulative_top(stats, total, done)
    return "\n".join(lines)


def cumulative_top(stats, total: float, done: int, n: int = 10) -> list[str]:
    """The ``n`` functions with the most cumulative time, with their share of the whole and calls per unit of
    work (the event loop's own frames, which hold everything, left out)."""
    skip = ("base_events.py", "events.py", "selector_events.py", "runners.py", "{built-in method builtins.exec}")
    rows = [(k, v) for k, v in stats.stats.items()
            if not any(k[0].endswith(x) or k[2] == x for x in skip) and k[2] != "<module>"]
    top = sorted(rows, key=lambda kv: -kv[1][3])[:n]
    return [f"    {100 * cum / total:5.1f}%  {Path(file).name}:{line} {name} ({calls / done:.1f} calls per action)"
            for (file, line, name), (_, calls, _, cum, _) in top]


# ------------------------------------------------------------------ 2. the knock-out


async def knockout(server_url: str, broker_url: str | None, processes: int, threads: int, teams: int,
                   target: int, drive: str, budget: float, level: str = "normal") -> dict:
    from domain.tournament import CreateChampionship, FinishChampionship, RegisterTeam, StartRound
    from domain.tournament.events import RoundSlot, Settings
    from domain.tournament import ChampionshipRuleError as Problem  # a round that cannot start yet

    async with Scratch(server_url) as db:
        bots = await add_bots(db.pool, 2 * teams)
        champs = db.platform.championships
        cid = "ko"
        now = await db.pool.fetchval("SELECT now()")
        schedule = (RoundSlot(1, now.isoformat()),) if drive == "auto" else ()
        settings = Settings(name="bench knock-out", format="single_elimination", match_games=1,
                            game_target=target, schedule=schedule)
        await champs.execute(cid, "create", lambda _: [CreateChampionship(cid, settings)], actor="bench", new=True,
                             metadata={"run": {"bot_level": level}})
        await champs.execute(cid, "register", lambda _: [RegisterTeam(f"team{i:03d}", (bots[2 * i], bots[2 * i + 1]))
                                                         for i in range(teams)], actor="bench")
        workers = start_workers(db.url, broker_url, processes, threads)
        driven_by = "the workers' championship schedules (the championship ran itself)"
        t0 = time.monotonic()
        drawn_at = None
        try:
            if drive == "bench":
                await champs.execute(cid, "close", lambda c: champs.close_registration(cid, c), actor="bench")
                await champs.execute(cid, "draw", lambda c: [champs.make_draw(cid, c, {})], actor="bench")
            last_progress, last_decided = time.monotonic(), (-1, -1)
            while True:
                workers.check()
                champ = await champs.load(cid)
                state = champ.state
                if drawn_at is None and state.rounds:
                    drawn_at = time.monotonic()
                if state.status == "finished":
                    break
                decided = sum(1 for r in state.rounds for o in r.outcomes if o is not None)
                stored = await db.pool.fetchval("SELECT count(*) FROM events")
                if (decided, stored) != last_decided:      # progress: a result, or any table moving
                    last_progress, last_decided = time.monotonic(), (decided, stored)
                if time.monotonic() - t0 > budget:
                    raise SystemExit(f"knock-out not finished within {budget:.0f}s: {decided} matches decided")
                if drive == "auto" and time.monotonic() - last_progress > 60:
                    drive = "bench"
                    driven_by = (f"the bench (ChampionshipService calls), after the championship made no progress "
                                 f"for 60 s by itself at {decided} decided matches")
                    if not state.rounds:
                        await champs.execute(cid, "close", lambda c: champs.close_registration(cid, c),
                                             actor="bench")
                        await champs.execute(cid, "draw", lambda c: [champs.make_draw(cid, c, {})], actor="bench")
                if drive == "bench":
                    driven_by = driven_by if "bench" in driven_by else "the bench (ChampionshipService calls)"
                    await drive_once(champs, cid, StartRound, FinishChampionship, Problem)
                await asyncio.sleep(0.5)        # a bounded look at the workers' progress
        finally:
            workers.close()
        elapsed = time.monotonic() - (drawn_at or t0)
        champ = await champs.load(cid)
        games = await db.pool.fetchval("SELECT count(*) FROM tables_index")
        actions = await db.pool.fetchval("SELECT count(*) FROM events WHERE metadata->>'command_id' LIKE 'bot:%'")
    return dict(where=workers.where, seconds=elapsed, games=games, actions=actions,
                rounds=len(champ.state.rounds), driven_by=driven_by)


async def drive_once(champs, cid, StartRound, FinishChampionship, Problem) -> None:
    """One organiser step: collect finished tables' results; start the next round or finish when all are in."""
    await champs.matches.collect_results(cid)
    state = (await champs.load(cid)).state
    if state.status == "finished":
        return
    if state.rounds and any(o is None for o in state.rounds[-1].outcomes):
        await champs.matches.open_round_tables(cid, len(state.rounds), "bench")   # idempotent: tables that are missing
        return
    n = len(state.rounds) + 1
    try:
        await champs.execute(cid, f"bench/round-{n}", lambda _: [StartRound(n)], actor="bench")
        await champs.matches.open_round_tables(cid, n, "bench")
    except Problem:
        try:
            await champs.execute(cid, "bench/finish", lambda _: [FinishChampionship()], actor="bench")
        except Problem:
            pass


# ------------------------------------------------------------------ main


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=32, help="all-bot tables for the actions-per-second runs")
    p.add_argument("--seconds", type=float, default=20, help="how long each actions-per-second run lasts at most")
    p.add_argument("--threads", type=int, default=8, help="threads per worker process (default 8, as `baloot worker`)")
    p.add_argument("--teams", type=int, default=256)
    p.add_argument("--target", type=int, default=152, help="the game target of the knock-out's games")
    p.add_argument("--processes", type=int, default=2, help="worker processes for the knock-out")
    p.add_argument("--drive", choices=("auto", "bench"), default="auto")
    p.add_argument("--budget", type=float, default=240, help="the most the knock-out may take (seconds)")
    p.add_argument("--profile", action="store_true", help="also cProfile the actor path in this process")
    p.add_argument("--skip-knockout", action="store_true")
    p.add_argument("--level", choices=LEVELS, default="normal",
                   help="the bots' level at the tables and in the knock-out (default normal)")
    args = p.parse_args()

    from services.db import database_server
    from services.workers.broker import rabbitmq_reachable
    server = database_server()
    broker_url = os.environ.get("BROKER_URL") or DEFAULT_BROKER
    if not rabbitmq_reachable(broker_url):
        print(f"RabbitMQ is not reachable at {broker_url.split('@')[-1]}: using the in-process broker, with 1 and 2 "
              "worker threads standing for 1 and 2 processes")
        broker_url = None
    print(f"database: {server.description}")
    memory_events, memory_actions = in_memory_rate(3.0)
    print(f"the engine and normal bots in memory, one core: {memory_actions:,.0f} bot actions/s "
          f"({1e6 / memory_actions:.0f} us CPU an action), {memory_events:,.0f} events/s")

    for n in (1, 2):
        r = await actions_per_second(server.url, broker_url, n, args.threads, args.tables, args.seconds, args.level)
        print(f"{args.level} bot actions/s with {r['where']}: {r['rate']:.0f}/s ({r['actions']} actions, {r['events']} events "
              f"in {r['appends']} appends, {r['span']:.1f}s, {args.tables} tables); {r['event_rate']:.0f} events/s "
              f"= {r['event_rate'] / r['baseline']:.2f} x the raw-asyncpg baseline ({r['baseline']:.0f} events/s, "
              f"batches of 40, same run)")
        print(f"    cost per action: worker CPU {r['cpu_us']:.0f} us (after its start-up), database backends' CPU {r['db_cpu_us']:.0f} us, "
              f"{r['queries']:.2f} queries (transactions of the database, bench polling included); the worker's CPU "
              f"= {r['cpu_us'] * memory_actions / 1e6:.1f} x the engine's in memory; "
              f"per-table time between appends: median {r['latency_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms")
    if args.profile:
        print("where one worker process spends its CPU (cProfile of the actor path, 8 tables):")
        print(await profile_actions(server.url))
    if args.skip_knockout:
        return
    k = await knockout(server.url, broker_url, args.processes, args.threads, args.teams, args.target, args.drive,
                       args.budget, args.level)
    print(f"knock-out of {args.teams} all-bot teams, one game to {args.target} per match: {k['seconds']:.1f}s from "
          f"draw to champion ({k['rounds']} rounds, {k['games']} games, {k['actions']} bot actions, "
          f"{k['actions'] / k['seconds']:.0f} actions/s) with {k['where']}; rounds driven by {k['driven_by']}")


if __name__ == "__main__":
    asyncio.run(main())
