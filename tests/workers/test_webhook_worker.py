"""The webhook sender inside a real ``baloot worker`` process (RabbitMQ at BROKER_URL), killed with SIGKILL while
a receiver holds a delivery unanswered: the delivery stays queued, the next worker sends it again with the same
webhook-id, the receiver drops it, and in the end it has every delivery exactly once, in order.

Without a reachable RabbitMQ the worker cannot start; the sender then runs alone in a process of its own,
killed the same way, the outbox queued by the test (and the test says so)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import warnings

import pytest

from services.db import schema_url
from services.workers.broker import rabbitmq_reachable
from tests.stored_championship import knock_out
from tests.webhooks.conftest import pending, queue
from tests.webhooks.receiver import ROOT, Receiver
from tests.webhooks.test_delivery import endpoint_for, expected, received
from tests.workers.test_rabbitmq import BROKER_URL, DEADLINE, POLL, RabbitWorkers

ENV = {"BALOOT_WEBHOOK_ALLOW": "127.0.0.1/32", "BALOOT_WEBHOOK_RETRY": "base=0.2,factor=2,cap=2"}
SENDER = ("import asyncio, asyncpg, sys\n"
          "from services.webhooks.sender import WebhookSender\n"
          "async def main():\n"
          "    pool = await asyncpg.create_pool(sys.argv[1])\n"
          "    await WebhookSender(pool, poll=0.2).run()\n"
          "asyncio.run(main())\n")


class LoneSender:
    """The stand-in without RabbitMQ: the sender alone in a process."""

    where = "a sender process of its own (RabbitMQ not reachable)"

    def __init__(self, database_url: str):
        self.database_url, self.proc = database_url, None

    def start(self, **env: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", SENDER, self.database_url], cwd=ROOT,
                                     env=dict(os.environ, **env), start_new_session=True)

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def output(self) -> str:
        return ""

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.kill()


@pytest.fixture
async def delivering(database_url, db_schema):
    url = schema_url(database_url, db_schema)
    if await asyncio.to_thread(rabbitmq_reachable, BROKER_URL):
        backend = RabbitWorkers(url)
        backend.where = f"baloot worker on {backend.where}"
    else:
        backend = LoneSender(url)
        warnings.warn(f"RabbitMQ is not reachable: the sender ran as {backend.where}", stacklevel=1)
    try:
        yield backend
    finally:
        backend.close()


async def until(what: str, done, workers) -> None:
    deadline = time.monotonic() + DEADLINE
    while not await done():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {DEADLINE}s ({workers.where})\n{workers.output()}")
        await asyncio.sleep(POLL)


async def test_a_worker_killed_mid_delivery_loses_nothing_and_the_receiver_handles_each_once(
        pool, tmp_path, delivering, monkeypatch):
    monkeypatch.setenv("BALOOT_WEBHOOK_ALLOW", ENV["BALOOT_WEBHOOK_ALLOW"])
    receiver = Receiver(tmp_path)
    await endpoint_for(pool, receiver)
    cid, _ = await knock_out(pool, 8)
    if isinstance(delivering, LoneSender):
        await queue(pool)                                # the worker's projection runner would queue them
    try:
        receiver.start("--hold-at", "3")                 # takes the 3rd delivery in and never answers it
        delivering.start(**ENV)

        async def holding():
            return len(receiver.entries()) >= 3
        await until("the receiver holding the 3rd delivery", holding, delivering)
        held = receiver.entries()[2]
        assert held["fresh"]
        delivering.kill()                                # mid-delivery: no answer came
        row = await pool.fetchrow("SELECT status, attempts FROM webhook_deliveries WHERE event_id = $1::uuid",
                                  held["id"])
        assert (row["status"], row["attempts"]) == ("pending", 0), "the killed delivery is still queued"

        delivering.start(**ENV)

        async def drained():
            return await pool.fetchval("SELECT count(*) FROM webhook_deliveries") and not await pending(pool)
        await until("every delivery made", drained, delivering)
    finally:
        receiver.kill()
    assert received(receiver, cid) == await expected(pool, cid)
    assert [e["id"] for e in receiver.entries()].count(held["id"]) == 2, "sent again after the kill, handled once"
    print(f"webhooks through a killed sender: {len(receiver.fresh())} delivered once each ({delivering.where})")
