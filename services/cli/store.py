"""`baloot migrate`: bring the event store's schema up to date."""

from __future__ import annotations

import argparse
import asyncio

import asyncpg


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "migrate", help="apply the event store's pending migrations",
        description="Apply the SQL migrations not yet applied (DATABASE_URL, else the embedded server).")
    parser.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_URL, else embedded)")
    parser.set_defaults(func=migrate_command)


def migrate_command(args: argparse.Namespace) -> int:
    from services.db import Server, database_server, redact
    from services.eventstore.migrations import MigrationError, migrate

    server = (Server(args.database_url, f"PostgreSQL at {redact(args.database_url)}", False)
              if args.database_url else database_server())
    print(f"Using {server.description}")

    async def run() -> list[str]:
        conn = await asyncpg.connect(server.url)
        try:
            return await migrate(conn)
        finally:
            await conn.close()

    try:
        applied = asyncio.run(run())
    except MigrationError as exc:
        print(f"Migration failed: {exc}")
        return 1
    if applied:
        for name in applied:
            print(f"Applied {name}")
    else:
        print("Nothing to apply: the schema is up to date")
    return 0
