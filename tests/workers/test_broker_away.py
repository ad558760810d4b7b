"""RabbitMQ away: a command still succeeds (its events are stored), and the reconciler redoes the work.

The broker is a real RabbitMQ client pointed at a local port nothing listens on: every send is refused, as
while RabbitMQ restarts. Nothing is lost, because the work a table waits for is derived from its log.
"""

from __future__ import annotations

import socket

import pytest

from services.workers.actors import Workers
from services.workers.broker import make_broker
from tests.workers.helpers import (
    add_users, all_bots, in_process, assert_chain_holds, assert_exactly_once, ended, schema_url, stream_rows,
)

pytestmark = pytest.mark.asyncio


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
async def away(database_url, db_schema, pool):
    """Actors whose broker (RabbitMQ) cannot be reached, on this test's schema."""
    await add_users(pool)
    broker, _ = make_broker(f"amqp://guest:guest@127.0.0.1:{closed_port()}/")
    workers = Workers(broker, schema_url(database_url, db_schema))
    try:
        yield workers
    finally:
        await workers.runtime.close()
        broker.close()


@pytest.fixture
async def rig(database_url, db_schema):
    """The workers once the broker is back (in-process broker), on the same schema."""
    async with in_process(schema_url(database_url, db_schema)) as rig:
        yield rig


async def test_sending_to_an_unreachable_broker_raises_what_the_flow_leaves_to_the_reconciler(away):
    with pytest.raises(away.unavailable):
        away.bot_turn.send("t1", 1)


async def test_a_command_succeeds_with_the_broker_away_and_the_reconciler_redoes_its_work(away, rig):
    svc = await away.runtime.tables()
    opened = await svc.open_table(all_bots("t1", level="easy"))      # its first bot turn cannot be queued
    stored = await svc.load("t1")
    assert stored.version == opened.version >= 1
    assert rig.queued("bots") == 0

    assert await rig.workers.reconcile() == 1                       # the broker is back: found from the log
    rig.start()
    table = await rig.drain_until(await rig.tables(), "t1", ended)

    assert table.game.phase == "ended"
    rows = await stream_rows(svc.pool, "t1")
    assert_exactly_once(rows)
    await assert_chain_holds(svc.pool, "t1")
