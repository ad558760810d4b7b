"""Migrations: numbered, forward-only, each all-or-nothing, idempotent; `baloot migrate`."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import asyncpg
import pytest

from services.cli import main
from services.eventstore import MIGRATIONS_DIR, MigrationError, applied_migrations, migrate


def write(directory: Path, name: str, sql: str) -> None:
    (directory / name).write_text(sql, encoding="utf-8")


async def tables(conn: asyncpg.Connection) -> set[str]:
    return {r["tablename"] for r in await conn.fetch(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}


async def test_running_migrations_twice_is_a_no_op(connect, db_schema):
    conn = await connect()
    names = [path.name for path in sorted(MIGRATIONS_DIR.glob("*.sql"))]
    assert await applied_migrations(conn) == names  # the fixture migrated this schema
    before = await tables(conn)
    assert await migrate(conn) == []
    assert await migrate(conn) == []
    assert await tables(conn) == before
    assert await conn.fetchval("SELECT count(*) FROM schema_migrations") == len(names)


async def test_a_failing_migration_leaves_nothing_half_applied(connect, db_schema, tmp_path):
    conn = await connect()
    await conn.execute(f'CREATE SCHEMA "{db_schema}_m"; SET search_path TO "{db_schema}_m"')
    try:
        write(tmp_path, "0001_seats.sql", "CREATE TABLE seats (n int);")
        write(tmp_path, "0002_broken.sql", "CREATE TABLE half (n int);\nINSERT INTO seats VALUES (1);\nSELEC 1;")
        with pytest.raises(MigrationError, match="0002_broken.sql failed, nothing of it was applied"):
            await migrate(conn, tmp_path)
        assert await applied_migrations(conn) == ["0001_seats.sql"]
        assert await tables(conn) == {"schema_migrations", "seats"}
        assert await conn.fetchval("SELECT count(*) FROM seats") == 0
        # Fixed, it applies on the next run, and only it.
        write(tmp_path, "0002_broken.sql", "CREATE TABLE half (n int);")
        assert await migrate(conn, tmp_path) == ["0002_broken.sql"]
        # An applied migration must not change afterwards.
        write(tmp_path, "0001_seats.sql", "CREATE TABLE seats (n bigint);")
        with pytest.raises(MigrationError, match="0001_seats.sql was changed after it was applied"):
            await migrate(conn, tmp_path)
    finally:
        await conn.execute(f'DROP SCHEMA "{db_schema}_m" CASCADE')


async def test_badly_named_or_duplicate_migrations_are_refused(connect, db_schema, tmp_path):
    conn = await connect()
    write(tmp_path, "0001_a.sql", "SELECT 1;")
    write(tmp_path, "0001_b.sql", "SELECT 1;")
    with pytest.raises(MigrationError, match="0001_b.sql: number 0001 is already used by 0001_a.sql"):
        await migrate(conn, tmp_path)
    (tmp_path / "0001_b.sql").rename(tmp_path / "2_b.sql")
    with pytest.raises(MigrationError, match="2_b.sql: migration files are named NNNN_name.sql"):
        await migrate(conn, tmp_path)


def test_baloot_migrate_reports_the_server_and_the_migrations(database_url, capsys):
    schema = f"test_cli_{uuid.uuid4().hex[:12]}"

    async def sql(statement: str) -> None:
        conn = await asyncpg.connect(database_url)
        try:
            await conn.execute(statement)
        finally:
            await conn.close()

    asyncio.run(sql(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in database_url else "?"
    url = f"{database_url}{separator}search_path={schema}"
    try:
        assert main(["migrate", "--database-url", url]) == 0
        first = capsys.readouterr().out
        assert main(["migrate", "--database-url", url]) == 0
        second = capsys.readouterr().out
    finally:
        asyncio.run(sql(f'DROP SCHEMA "{schema}" CASCADE'))
    assert first.startswith("Using PostgreSQL at ")
    assert "Applied 0001_event_store.sql" in first
    assert "Nothing to apply: the schema is up to date" in second
