"""Where the platform's PostgreSQL is: DATABASE_URL when set, else an embedded server of our own.

The embedded server (the `pgserver` package: PostgreSQL binaries in a wheel) keeps its data under the
user's data directory, so `baloot` works on a fresh machine with no setup.  It stops when the last
process using it exits.

pgserver stops the server from an `atexit` hook, once the exiting process is the last one listed in
`pgdata/.handle_pids.json`.  Two things kept that hook from ever stopping it:

* A process ended by SIGTERM or SIGHUP runs no `atexit` hook.  uvicorn catches SIGTERM for a graceful
  shutdown, then restores the previous handler (the default one) and raises the signal again, so
  `baloot serve` stopped with `kill` died by the signal and left postgres running.  We turn those
  signals into `SystemExit` in the main thread, so the process exits the normal way.
* A process that died without its hook (SIGKILL, a crash, or the case above) stays in the pid list for
  good, and no later process is ever the last one.  We drop dead pids from the list when a process joins
  and again when it leaves, before pgserver's own hook looks at it.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import re
import signal
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import platformdirs

from services.eventstore.migrations import migrate

log = logging.getLogger(__name__)

DATA_DIR = Path(platformdirs.user_data_dir("baloot-arena"))

_servers: dict[Path, Any] = {}  # pgserver handles, kept alive for the life of the process


@dataclass(frozen=True)
class Server:
    """A PostgreSQL server to use: its URL and a line saying which one it is."""

    url: str
    description: str
    embedded: bool


def redact(url: str) -> str:
    """The URL with its password hidden."""
    return re.sub(r"(//[^:/@]*:)[^@/]*@", r"\1***@", url)


def embedded_server(data_dir: Path | None = None, *, cleanup_mode: str | None = "stop") -> Server:
    """Start (or join) the embedded PostgreSQL whose data lives in `data_dir` (default: user data dir)."""
    with warnings.catch_warnings():  # pgserver's platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        import pgserver  # imported late: only the embedded case needs it

    pgdata = (data_dir or DATA_DIR / "pgdata").expanduser().resolve()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    if pgdata not in _servers:
        _exit_normally_on_signals()
        handle = pgserver.get_server(pgdata, cleanup_mode=cleanup_mode)
        _forget_dead_users(handle)
        # atexit runs hooks last-in first-out: this one runs before the hook pgserver registered above.
        atexit.register(_forget_dead_users, handle)
        _servers[pgdata] = handle
    server = _servers[pgdata]
    return Server(server.get_uri(), f"embedded PostgreSQL (pgserver) with data in {pgdata}", True)


def _exit_normally_on_signals() -> None:
    """Make SIGTERM and SIGHUP raise SystemExit (status 128 + signal), so that atexit hooks run."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is signal.SIG_DFL:
            signal.signal(sig, _raise_system_exit)


def _raise_system_exit(signum, frame) -> None:
    sys.exit(128 + signum)


def _forget_dead_users(handle) -> None:
    """Drop the pids of processes that have died from the server's list of users (see the module doc)."""
    import psutil  # a dependency of pgserver

    def alive(pid: int) -> bool:
        if pid == os.getpid():
            return True
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    with handle._lock:
        pids = handle.global_process_id_list.get()
        users = [pid for pid in pids if alive(pid)]
        if users != pids:
            log.info("embedded PostgreSQL: dropping dead users %s", sorted(set(pids) - set(users)))
            handle.global_process_id_list.put(users)


@contextlib.contextmanager
def quiet_output(what: str):
    """Keep what this process and its children write to stdout and stderr (initdb's ~45 lines) in a file, shown
    only if the block fails."""
    with tempfile.TemporaryFile() as kept:
        saved = [os.dup(1), os.dup(2)]
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(kept.fileno(), 1)
        os.dup2(kept.fileno(), 2)
        try:
            yield
        except BaseException:
            _restore(saved)
            kept.seek(0)
            sys.stderr.write(f"{what} failed; what it said:\n{kept.read().decode(errors='replace')}")
            raise
        _restore(saved)


def _restore(saved: list[int]) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    for fd, copy in zip((1, 2), saved):
        os.dup2(copy, fd)
        os.close(copy)
    saved.clear()


def database_server() -> Server:
    """The server from DATABASE_URL if set, else the embedded one."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return Server(url, f"PostgreSQL at {redact(url)} (from DATABASE_URL)", False)
    return embedded_server()


Pool = asyncpg.Pool          # the connection pool every service is given (the doors name its type from here)

# Errors that mean the database is away (restarting, unreachable, or every connection busy), not a bug: a door
# refuses the request as unavailable, to be retried (a command id makes that safe).
DATABASE_AWAY: tuple[type[BaseException], ...] = (
    asyncpg.PostgresConnectionError,         # the connection failed or was lost mid-request
    asyncpg.exceptions.OperatorInterventionError,  # shutting down, crashed, or not accepting connections yet
    asyncpg.exceptions.ConnectionDoesNotExistError,
    asyncio.TimeoutError,                    # no pool connection (or no answer) in time
    # Every node of a multi-host URL answers but none takes writes yet (a failover: the primary lost, the
    # standby not promoted), or a node took a write while it was (again) a standby.
    asyncpg.exceptions.TargetServerAttributeNotMatched,
    asyncpg.exceptions.ReadOnlySQLTransactionError,
    # A pooled connection the server ended while it lay idle (a restart, a failover) may fail its next query
    # with asyncpg's "cannot switch to state 12; another operation (2) is in progress": nothing was sent
    # (deploy/chaos found it answered 500 while PostgreSQL restarted).
    asyncpg.exceptions.InternalClientError,
    OSError,                                 # refused, reset, unreachable
)


async def answers(pool: asyncpg.Pool, within: float) -> None:
    """Returns once the database answers a trivial query; raises one of ``DATABASE_AWAY`` if it does not
    within ``within`` seconds."""
    async with asyncio.timeout(within):
        await pool.fetchval("SELECT 1")


async def reset_connection(conn: asyncpg.Connection) -> None:
    """Ready a connection for its next user when it returns to the pool.

    asyncpg's default reset costs a round trip on every release, which doubles the cost of a one-query
    use such as an append.  Our code undoes its own session state (the projection runner unlocks and
    unlistens, or drops the connection), so only an abandoned transaction needs the full reset.
    """
    if conn.is_in_transaction():
        await conn.reset()


async def create_pool(url: str, **options: Any) -> asyncpg.Pool:
    """An asyncpg pool with the platform's settings: the cheap reset (see reset_connection), and no JIT
    compilation (the platform's statements are short; the planner's cost estimates of the few long ones, a
    stream's chain check, a rehearsal's per-stream checks, set LLVM compiling for longer than they run: 1.2%
    of the machine's CPU in a rehearsal)."""
    options.setdefault("reset", reset_connection)
    options["server_settings"] = {"jit": "off", **options.get("server_settings", {})}
    return await asyncpg.create_pool(url, **options)


async def connect(url: str | None = None, *, migrate_schema: bool = True, **pool_options: Any) -> asyncpg.Pool:
    """A connection pool to `url` (default: database_server()), migrated unless told otherwise."""
    server = Server(url, f"PostgreSQL at {redact(url)}", False) if url else database_server()
    log.info("event store: using %s", server.description)
    pool = await create_pool(server.url, **pool_options)
    if migrate_schema:
        applied = await migrate(pool)
        if applied:
            log.info("event store: applied migrations %s", ", ".join(applied))
    return pool


def schema_url(url: str, schema: str) -> str:
    """``url`` with connections using ``schema`` (asyncpg passes unknown query parameters as settings)."""
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


async def create_scratch_schema(url: str, prefix: str = "scratch") -> str:
    """A new, migrated schema with a unique name (for a test or a benchmark); returns its name."""
    import uuid

    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
        await conn.execute(f'SET search_path TO "{schema}"')
        await migrate(conn)
    finally:
        await conn.close()
    return schema


async def drop_schema(url: str, schema: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()
