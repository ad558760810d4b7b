"""``baloot serve``: migrate and serve the HTTP API (embedded PostgreSQL unless DATABASE_URL is set)."""

from __future__ import annotations

import gc
import logging
import os
import sys


def register(subparsers) -> None:
    serve = subparsers.add_parser("serve", help="migrate and serve the HTTP API, the pages and (with no BROKER_URL) "
                                                 "the workers")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="the port to listen on (default 8000)")
    serve.add_argument("--log-level", default="warning", choices=("debug", "info", "warning", "error"),
                       help="what the server and its libraries log (default: warnings and errors only)")
    serve.add_argument("--access-log", action="store_true", help="log every request (off by default)")
    serve.add_argument("--worker-threads", type=int, default=2,
                       help="threads of the in-process workers, when no BROKER_URL sends the work elsewhere (default 2)")
    serve.set_defaults(func=run)


# The cyclic garbage collector's thresholds while serving. Thousands of live streams keep ~1 M objects alive
# and what was loaded before serving is frozen out of every scan. A young collection walks every object made
# since the last one and still alive: each table's latest fold and each woken stream's wait, ~35 objects a
# table. Every 1,000 net allocations (~4 times a second at 1,000 actions/s) that is a few thousand objects,
# 2 ms on average; at 50,000 (before) it was every table at once, 55-120 ms at 2,500 tables, and p99 over
# 50 ms. The serving loop makes next to no cyclic garbage (none found in any measured window), so the older
# generations keep their earlier pace: generation 1 (the live set again, 0.15-0.7 s at 2,500 tables) every
# 5,000 young collections, ~20 min at that load, and a full collection every 100 of those.
# deploy/SCALING.md, "Figures of the live path, 6 December 2026, midday".
GC_THRESHOLDS = (1_000, 5_000, 100)


def tune_gc() -> None:
    """The collector as a server with thousands of live streams wants it (``GC_THRESHOLDS``)."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def say(line: str) -> None:
    print(f"baloot serve: {line}", file=sys.stderr, flush=True)


def proxy_options() -> dict:
    """uvicorn's options for the client's address: ``X-Forwarded-For`` is believed only from the proxies in
    ``BALOOT_TRUSTED_PROXIES`` (comma-separated addresses or networks; none by default), so that a client
    cannot choose the address its per-address budgets (sign-ups, bad tokens) count against."""
    trusted = os.environ.get("BALOOT_TRUSTED_PROXIES", "").strip()
    return {"proxy_headers": bool(trusted), "forwarded_allow_ips": trusted or None}


def run(args) -> int:
    import uvicorn

    from services.api.app import create_app
    from services.db import database_server, quiet_output

    from services.workers.entry import build

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    if not os.environ.get("DATABASE_URL"):
        say("starting the embedded PostgreSQL (its first start makes its data folder: about 15 s)…")
    with quiet_output("the embedded PostgreSQL"):
        server = database_server()
    broker, workers, where = build(server.url, log_level=args.log_level)
    say(f"database: {server.description}")
    # The API's appends queue the workers' part (bot turns, clocks, championship ticks): services/flow.py.
    app = create_app(server.url, work=workers)
    worker = None
    if not os.environ.get("BROKER_URL"):
        import dramatiq
        worker = dramatiq.Worker(broker, worker_threads=args.worker_threads)
        worker.start()
        say(f"workers: in-process ({where}, {args.worker_threads} threads)")
    else:
        say(f"workers: the work goes to {where}; run `baloot worker` for it")
    base = f"http://{args.host}:{args.port}"
    say(f"API: {base} (its reference at {base}/schema)")
    say(f"pages: play at {base}/play/, watch at {base}/watch/, organise at {base}/organise/, referee at "
        f"{base}/referee/")
    if not args.access_log:
        say("request logs are off (--access-log to see each request); Ctrl+C stops")
    tune_gc()
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=args.access_log,
                    **proxy_options())
    finally:
        if worker is not None:
            worker.stop()
    return 0
