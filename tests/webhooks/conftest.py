"""Webhooks under test: the outbox projection and the sender on this test's PostgreSQL schema, delivering over
real HTTP to a receiver process on loopback (allow-listed, as an operator would)."""

from __future__ import annotations

import asyncio
import time

import pytest

from services.eventstore import Checkpoint, ProjectionRunner
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
    """The outbox caught up with every event stored so far (what the workers' projection runner does as events
    come). Followed until it has passed the last, rather than one catch-up: a reader passes no event while an
    older transaction anywhere on the server is open (so that none can commit behind it), and on a server shared
    with other runs one catch-up may stop short of events already stored."""
    last = await pool.fetchrow("SELECT tx_id, position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1")
    runner = ProjectionRunner(pool, webhooks_read_model(), poll_interval=0.1)
    if last is None:
        await runner.catch_up()
        return
    target = Checkpoint(int(last["tx_id"]), last["position"])
    following = asyncio.create_task(runner.run())
    reached = asyncio.create_task(runner.wait_until(lambda r: r.checkpoint is not None and r.checkpoint >= target))
    try:
        done, _ = await asyncio.wait({following, reached}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
        assert done, f"the outbox did not reach the log's last event {target} within 60 s"
        for task in done:
            task.result()                       # the projection failed: its error
    finally:
        for task in (following, reached):
            task.cancel()
        await asyncio.gather(following, reached, return_exceptions=True)


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
