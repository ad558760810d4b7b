"""Workers started on a fresh, unmigrated database migrate it before their first
reconcile, instead of logging errors until someone else does."""

from __future__ import annotations

import asyncio
import logging
import uuid

import asyncpg
import pytest
from dramatiq.asyncio import get_event_loop_thread

from services.platform import Platform
from services.tables import TableOpened
from services.db import drop_schema, schema_url
from services.eventstore.migrations import applied_migrations, load_migrations
from domain.baloot.profiles import profile_named
from tests.workers.conftest import Running


@pytest.fixture
async def empty_schema(database_url):
    """A schema with nothing in it: no migration has run."""
    schema = f"test_fresh_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
    finally:
        await conn.close()
    try:
        yield schema
    finally:
        await drop_schema(database_url, schema)


async def test_a_reconcile_on_an_unmigrated_database_migrates_it_and_logs_no_error(database_url, empty_schema,
                                                                                    caplog):
    caplog.set_level(logging.WARNING)
    url = schema_url(database_url, empty_schema)
    run = Running(url)
    try:
        # As the Reconciler runs it: on the workers' event loop thread.
        n = await asyncio.to_thread(get_event_loop_thread().run_coroutine, run.workers.reconcile())
        assert n == 0
        async with asyncpg.create_pool(url, min_size=1, max_size=2) as pool:
            assert await applied_migrations(pool) == [m.name for m in load_migrations()]
            # The projection runner started on the same empty database and follows the log without a failure.
            tables = (await Platform.on(pool)).tables
            await tables.open_table(TableOpened(table_id="fresh", seats=("a", "b", "c", "d"),
                                                profile=profile_named("saudi", {})))
            await asyncio.wait_for(run.projection_caught_up(pool), timeout=30)
        assert run.workers.projections.last_failure is None
    finally:
        await run.stop()
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("baloot")]
    assert not problems, caplog.text
