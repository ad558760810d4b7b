"""``baloot serve``: migrate and serve the HTTP API (embedded PostgreSQL unless DATABASE_URL is set)."""

from __future__ import annotations

import gc
import logging
import os
import sys


def register(subparsers) -> None:
    serve = subparsers.add_parser("serve", help="migrate and serve the HTTP API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="info")
    serve.add_argument("--worker-threads", type=int, default=2, help="in-process worker threads (no BROKER_URL)")
    serve.set_defaults(func=run)


def proxy_options() -> dict:
    """uvicorn's options for the client's address: ``X-Forwarded-For`` is believed only from the proxies in
    ``BALOOT_TRUSTED_PROXIES`` (comma-separated addresses or networks; none by default), so that a client
    cannot choose the address its per-address budgets (sign-ups, bad tokens) count against."""
    trusted = os.environ.get("BALOOT_TRUSTED_PROXIES", "").strip()
    return {"proxy_headers": bool(trusted), "forwarded_allow_ips": trusted or None}


def run(args) -> int:
    import uvicorn

    from services.api.app import create_app
    from services.db import database_server

    from services.workers.entry import build

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    server = database_server()
    broker, workers, where = build(server.url)
    print(f"baloot serve: database: {server.description}", file=sys.stderr, flush=True)
    # The API's appends queue the workers' part (bot turns, clocks, championship ticks): services/flow.py.
    app = create_app(server.url, work=workers)
    worker = None
    if not os.environ.get("BROKER_URL"):
        import dramatiq
        worker = dramatiq.Worker(broker, worker_threads=args.worker_threads)
        worker.start()
        print(f"baloot serve: workers in-process ({where}, {args.worker_threads} threads)", file=sys.stderr,
              flush=True)
    else:
        print(f"baloot serve: work goes to {where}; run `baloot worker` for it", file=sys.stderr, flush=True)
    print(f"baloot serve: API on http://{args.host}:{args.port} (OpenAPI at /schema)", file=sys.stderr, flush=True)
    # Thousands of live streams keep ~0.5 M objects alive (each stream's tasks and coroutines): a full scan by
    # the cyclic GC paused the event loop 0.1-0.5 s (p99 of commands 700 ms at 800 tables). What was loaded
    # before serving is left out of its scans, and young collections come seldom enough that a request's
    # objects die by reference counting first (bench/human_load.py: p99 27 ms at 800 tables).
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, **proxy_options())
    finally:
        if worker is not None:
            worker.stop()
    return 0
