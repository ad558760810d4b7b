"""The daily deal under test: the real app on this test's schema, its daily service on a clock the test sets."""

from __future__ import annotations

import datetime as dt

import pytest
from litestar.testing import AsyncTestClient

from services.api.app import create_app
from services.platform import Platform
from services.tables import TableService
from tests.api.conftest import schema_url


def pytest_configure(config):
    config.pluginmanager.import_plugin("tests.db_fixtures")


class Clock:
    """The time the daily service reads: set by the test (the day's close is a time, not a sleep)."""

    def __init__(self, now: dt.datetime):
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


DAY = dt.date(2026, 12, 1)


@pytest.fixture
def clock() -> Clock:
    return Clock(dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc))


@pytest.fixture
async def api(database_url, db_schema, clock):
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 10_000),
                     daily={"boards": 2, "clock": clock})
    async with AsyncTestClient(app=app, timeout=60) as client:
        yield client


@pytest.fixture
async def platform(pool, clock) -> Platform:
    """The test's own services (the app's live on the test client's loop), on the same schema and clock: what
    the workers run (the close's reveal of the boards' seeds)."""
    return await Platform.on(pool, daily={"boards": 2, "clock": clock})


@pytest.fixture
async def tables(platform) -> TableService:
    return platform.tables
