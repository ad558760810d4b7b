"""Database fixtures, as a plugin: a real PostgreSQL for the whole session, a fresh schema for each test.

The server is DATABASE_URL if set; else a testcontainers PostgreSQL when a Docker engine answers;
else the embedded pgserver (in a temporary data directory, deleted at the end).  Each test gets its
own schema, migrated, and a pool whose connections have that schema as their search_path.

Only the directories that store or serve load it, from their conftest's ``pytest_configure``, so that a run
of the rules engine or tournament tests imports no database package. It is one plugin, loaded once however
many directories ask, so the run keeps one server and one signing key. (``pytest_plugins`` is refused outside
the root conftest, and importing the fixtures into each conftest would start one server per directory.)
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import asyncpg
import pytest

from services.db import create_scratch_schema, drop_schema

# One server secret for the whole run, shared by the worker processes the tests start (never written to the
# user's data directory, where `baloot serve` keeps its own).
os.environ.setdefault("BALOOT_SECRET", f"test-{os.getpid()}")


def _docker_reachable() -> bool:
    """Whether a Docker engine answers, decided in well under a second when there is none."""
    host = os.environ.get("DOCKER_HOST", "")
    if not host and not Path("/var/run/docker.sock").exists():
        return False
    try:
        import docker

        client = docker.from_env(timeout=2)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


@pytest.fixture(scope="session", autouse=True)
def signing_key_file(tmp_path_factory) -> Path:
    """A signing key of the tests' own: the app creates one on start, never in the user's data directory."""
    path = tmp_path_factory.mktemp("anchor") / "signing-key.pem"
    previous = os.environ.get("BALOOT_SIGNING_KEY_FILE")
    os.environ["BALOOT_SIGNING_KEY_FILE"] = str(path)
    yield path
    if previous is None:
        os.environ.pop("BALOOT_SIGNING_KEY_FILE", None)
    else:
        os.environ["BALOOT_SIGNING_KEY_FILE"] = previous


def _own_database(url: str) -> str:
    """``url`` itself, or under pytest-xdist (``tests/run`` runs the suite in two processes) a database of
    this worker's own on the same server, made from ``url``'s and kept: a test that ends every connection
    of its database (tests/api/test_health.py: what a failover does to the pools) must not end the other
    process's."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    import asyncio
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'postgres'}_{worker}"

    async def make() -> None:
        conn = await asyncpg.connect(url)
        try:
            if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
                await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(make())
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture(scope="session")
def database_url() -> str:
    """The URL of the PostgreSQL server the tests use (see the module docstring)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        yield _own_database(url)
        return
    if _docker_reachable():
        from testcontainers.postgres import PostgresContainer

        with PostgresContainer("postgres:16-alpine", driver=None) as container:
            yield container.get_connection_url()
        return
    with warnings.catch_warnings():  # pgserver's platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        import pgserver

    with tempfile.TemporaryDirectory(prefix="baloot-test-pg-", ignore_cleanup_errors=True) as tmp:
        server = pgserver.get_server(Path(tmp) / "pgdata", cleanup_mode="delete")
        try:
            yield server.get_uri()
        finally:
            server.cleanup()


@pytest.fixture
async def db_schema(database_url: str) -> AsyncIterator[str]:
    """A new, migrated schema for this test, dropped afterwards."""
    schema = await create_scratch_schema(database_url, "test")
    try:
        yield schema
    finally:
        await drop_schema(database_url, schema)


@pytest.fixture
async def connect(database_url: str, db_schema: str) -> AsyncIterator[Callable[[], Awaitable[asyncpg.Connection]]]:
    """A factory of extra connections on this test's schema, closed at the end of the test."""
    opened: list[asyncpg.Connection] = []

    async def open_connection() -> asyncpg.Connection:
        conn = await asyncpg.connect(database_url, server_settings={"search_path": db_schema})
        opened.append(conn)
        return conn

    yield open_connection
    for conn in opened:
        if not conn.is_closed():
            await conn.close(timeout=5)


@pytest.fixture
async def pool(database_url: str, db_schema: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on this test's schema."""
    async with asyncpg.create_pool(database_url, min_size=1, max_size=10,
                                   server_settings={"search_path": db_schema}) as pool:
        yield pool


def pytest_configure(config):
    # Wherever the database is, the apps are too: their refusals are checked against the schema's lists.
    config.pluginmanager.import_plugin("tests.declared_problems")
