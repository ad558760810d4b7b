"""Webhooks under test: the outbox projection and the sender on this test's PostgreSQL schema, delivering over
real HTTP to a receiver process on loopback (allow-listed, as an operator would)."""

from __future__ import annotations

import time

import pytest

from services.eventstore import ProjectionRunner
from services.webhooks.outbox import webhooks_read_model
from tests.webhooks.receiver import Receiver


def pytest_configure(config):
    # The database fixtures: one plugin for the whole run, loaded only where tests need a database.
    config.pluginmanager.import_plugin("tests.db_fixtures")


class Clock:
    """The sender's clock, moved by the test (seconds since the epoch, starting now)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(autouse=True)
def loopback_allowed(monkeypatch):
    monkeypatch.setenv("BALOOT_WEBHOOK_ALLOW", "127.0.0.1/32")


@pytest.fixture
def receiver(tmp_path):
    r = Receiver(tmp_path)
    try:
        yield r
    finally:
        r.kill()


async def queue(pool) -> None:
    """The outbox caught up with the log (what the workers' projection runner does as events come)."""
    await ProjectionRunner(pool, webhooks_read_model()).catch_up()


async def pending(pool) -> int:
    return await pool.fetchval("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")


async def drain(sender, clock: Clock, pool, passes: int = 200) -> None:
    """Run the sender until nothing is pending, moving the clock to each next retry when nothing is due."""
    for _ in range(passes):
        if not await pending(pool):
            return
        if not await sender.run_once():
            assert sender.next_due is not None, "deliveries pending and none due: an endpoint is disabled"
            clock.now = max(clock.now, sender.next_due)
    raise AssertionError(f"{await pending(pool)} deliveries still pending after {passes} passes")
