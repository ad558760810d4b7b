"""``baloot serve``: migrate and serve the HTTP API (embedded PostgreSQL unless DATABASE_URL is set)."""

from __future__ import annotations

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
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    finally:
        if worker is not None:
            worker.stop()
    return 0
