"""``baloot serve``: migrate and serve the HTTP API (embedded PostgreSQL unless DATABASE_URL is set)."""

from __future__ import annotations

import logging
import sys


def register(subparsers) -> None:
    serve = subparsers.add_parser("serve", help="migrate and serve the HTTP API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(func=run)


def run(args) -> int:
    import uvicorn

    from services.api.app import create_app
    from services.db import database_server

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    server = database_server()
    print(f"baloot serve: database: {server.description}", file=sys.stderr, flush=True)
    print(f"baloot serve: API on http://{args.host}:{args.port} (OpenAPI at /schema)", file=sys.stderr, flush=True)
    uvicorn.run(create_app(server.url), host=args.host, port=args.port, log_level=args.log_level)
    return 0
