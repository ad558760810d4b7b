"""``baloot worker`` (Dramatiq worker processes) and ``baloot status`` (queues, projections, clocks)."""

from __future__ import annotations

import asyncio
import os
import sys

from services.cli import positive
from services.workers.broker import QUEUES


def register(subparsers) -> None:
    worker = subparsers.add_parser("worker", help="run worker processes (bots, clocks, schedules)")
    worker.add_argument("--queues", nargs="+", default=list(QUEUES), choices=QUEUES,
                        help="the queues this worker takes work from (default: all)")
    worker.add_argument("--processes", type=positive, default=1, help="worker processes (default 1)")
    worker.add_argument("--threads", type=positive, default=8,
                        help="threads per process, each with a database connection (default 8: while one waits for "
                             "its commit to reach the disk, the others decide)")
    worker.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                        help="the platform's log lines (default: $BALOOT_LOG_LEVEL, else warning; each bot action "
                             "and reconciler pass at info)")
    worker.set_defaults(func=run_worker)

    status = subparsers.add_parser("status", help="queue depths, lagging projections, overdue clocks")
    status.set_defaults(func=run_status)


def run_worker(args) -> int:
    if not os.environ.get("BROKER_URL"):
        print("baloot worker: set BROKER_URL (RabbitMQ) to run separate worker processes; without it "
              "`baloot serve` runs the workers in-process", file=sys.stderr)
        return 2
    from services.db import database_server
    server = database_server()
    env = dict(os.environ, BALOOT_WORKER_ENTRY="1", BALOOT_WORKER_THREADS=str(args.threads), DATABASE_URL=server.url)
    if args.log_level:
        env["BALOOT_LOG_LEVEL"] = args.log_level.upper()
    print(f"baloot worker: database: {server.description}; broker: {os.environ['BROKER_URL'].split('@')[-1]}; "
          f"queues: {' '.join(args.queues)}", file=sys.stderr, flush=True)
    argv = [sys.executable, "-m", "dramatiq", "services.workers.entry", "--processes", str(args.processes),
            "--threads", str(args.threads), "--queues", *args.queues]
    os.execvpe(sys.executable, argv, env)
    return 0  # not reached


def run_status(args) -> int:
    from rich.console import Console
    from rich.table import Table

    rows = asyncio.run(_status())
    console = Console()
    for title, header, body in rows:
        table = Table(title=title)
        for h in header:
            table.add_column(h)
        for line in body:
            table.add_row(*[str(x) for x in line])
        console.print(table)
    return 0


async def _status():
    from services.db import connect, database_server
    from services.eventstore import Checkpoint, reads
    from services.platform import Platform
    from services.tables.pending import pending_work

    out = []
    broker_url = os.environ.get("BROKER_URL")
    if broker_url:
        from services.workers.broker import make_broker
        broker, where = make_broker(broker_url)
        body = []
        for q in QUEUES:
            broker.declare_queue(q)
            try:
                ready, delayed, dead = broker.get_queue_message_counts(q)
            except Exception as exc:  # a queue that was never declared on the server
                ready = delayed = dead = f"? ({type(exc).__name__})"
            body.append((q, ready, delayed, dead))
        out.append((f"queues ({where})", ("queue", "ready", "delayed", "dead letters"), body))
    else:
        out.append(("queues", ("note",), [("no BROKER_URL: workers run in-process in `baloot serve`",)]))
    server = database_server()
    pool = await connect(server.url, min_size=1, max_size=2)
    try:
        lag = await pool.fetch("SELECT name, tx_id, position, status FROM projections ORDER BY name")
        out.append(("projections", ("name", "checkpoint", "status", "events behind"),
                    [(r["name"], r["position"], r["status"],
                      await reads.count_after(pool, Checkpoint(r["tx_id"], r["position"]))) for r in lag]))
        svc = (await Platform.on(pool)).tables
        now = await pool.fetchval("SELECT now()")
        overdue = []
        for r in await pool.fetch("SELECT table_id FROM tables_index WHERE status = 'live'"):
            work = pending_work(await svc.load(r[0]))
            if work is not None and work.due is not None and work.due < now:
                overdue.append((work.table_id, work.kind, work.seat, f"{(now - work.due).total_seconds():.1f}s"))
            elif work is not None and work.kind == "bot":
                overdue.append((work.table_id, "bot to move", work.seat, "-"))
        out.append((f"waiting tables ({server.description})", ("table", "waiting on", "seat", "overdue by"),
                    overdue))
    finally:
        await pool.close()
    return out
