"""Numbered, forward-only SQL migrations, each applied in its own transaction with its record."""

from __future__ import annotations

import hashlib
import re
from importlib.resources import files
from dataclasses import dataclass
from pathlib import Path

import asyncpg

# The top-level ``migrations`` package (its SQL files are package data, so a wheel or an image migrates too).
MIGRATIONS_DIR = Path(str(files("migrations")))

_FILE_NAME = re.compile(r"^(\d{4})_[A-Za-z0-9_]+\.sql$")

_CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer PRIMARY KEY,
    name       text        NOT NULL,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)"""

# Serialises concurrent migrators of the same schema (two services starting together).
_LOCK = "SELECT pg_advisory_xact_lock(hashtext('baloot-arena/migrate/' || current_schema()))"


class MigrationError(Exception):
    """A migration failed, or an applied migration's file no longer matches what was applied."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def load_migrations(directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The migrations in `directory` (files named `NNNN_name.sql`), in order."""
    found: dict[int, Migration] = {}
    for path in sorted(Path(directory).glob("*.sql")):
        match = _FILE_NAME.match(path.name)
        if not match:
            raise MigrationError(f"{path.name}: migration files are named NNNN_name.sql")
        version = int(match.group(1))
        if version in found:
            raise MigrationError(f"{path.name}: number {version:04d} is already used by {found[version].name}")
        found[version] = Migration(version, path.name, path.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


async def migrate(db: asyncpg.Pool | asyncpg.Connection, directory: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply the migrations not yet applied to the current schema; return the names of those applied."""
    if isinstance(db, asyncpg.Pool):
        async with db.acquire() as conn:
            return await migrate(conn, directory)
    conn = db
    migrations = load_migrations(directory)
    async with conn.transaction():
        await conn.execute(_LOCK)
        await conn.execute(_CREATE_TABLE)
    applied_now: list[str] = []
    for migration in migrations:
        async with conn.transaction():
            await conn.execute(_LOCK)
            row = await conn.fetchrow(
                "SELECT name, checksum FROM schema_migrations WHERE version = $1", migration.version)
            if row is not None:
                if row["checksum"] != migration.checksum:
                    raise MigrationError(
                        f"{migration.name} was changed after it was applied (as {row['name']}); "
                        "migrations are forward-only: add a new file instead")
                continue
            try:
                await conn.execute(migration.sql)
            except asyncpg.PostgresError as exc:
                raise MigrationError(f"{migration.name} failed, nothing of it was applied: {exc}") from exc
            await conn.execute(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                migration.version, migration.name, migration.checksum)
        applied_now.append(migration.name)
    return applied_now


async def applied_migrations(db: asyncpg.Pool | asyncpg.Connection) -> list[str]:
    """Names of the migrations recorded as applied to the current schema, in order."""
    exists = await db.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
    if not exists:
        return []
    return [r["name"] for r in await db.fetch("SELECT name FROM schema_migrations ORDER BY version")]
