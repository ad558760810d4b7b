"""The workers against the real RabbitMQ at BROKER_URL (default: the local server), as separate processes.

Each test gets its own RabbitMQ virtual host (created with ``rabbitmqctl``), so no test sees another's
messages, nor those of anyone else using the server; without ``rabbitmqctl`` the queues are purged instead.
The workers are real ``baloot worker`` processes, killed with SIGKILL (their whole process group).

When RabbitMQ is not reachable the same scenarios run with the in-process broker, and say so: the
worker is then a dramatiq Worker in this process, a kill drops it and every queued message, and a broker
restart loses every queued message; the reconciler has to find the work again in each case.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path

import msgspec
import pytest

from domain.baloot.profiles import SAUDI
from services.platform import Platform
from services.tables import TableService
from services.workers.broker import rabbitmq_reachable
from tests.workers.helpers import (
    InProcess, add_users, all_bots, assert_chain_holds, assert_exactly_once, ended, schema_url, stream_rows,
)

BROKER_URL = os.environ.get("BROKER_URL") or "amqp://guest:guest@127.0.0.1:5672/"
BALOOT = str(Path(sys.executable).with_name("baloot"))
POLL = 0.2          # seconds between looks at a table another process is playing
DEADLINE = 120.0    # the most any scenario may take before it counts as lost work


def rabbitmqctl(*args: str) -> None:
    subprocess.run(["rabbitmqctl", *args], check=True, capture_output=True, timeout=60)


class RabbitWorkers:
    """``baloot worker`` processes on a RabbitMQ virtual host of their own."""

    def __init__(self, database_url: str):
        self.database_url = database_url
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Path] = []
        self.vhost = None
        base = BROKER_URL.rstrip("/")
        if shutil.which("rabbitmqctl") and BROKER_URL.rstrip("/").count("/") == 2:
            self.vhost = f"baloot-test-{uuid.uuid4().hex[:12]}"
            rabbitmqctl("add_vhost", self.vhost)
            user = BROKER_URL.split("//", 1)[1].split(":", 1)[0].split("@", 1)[0] or "guest"
            rabbitmqctl("set_permissions", "-p", self.vhost, user, ".*", ".*", ".*")
            self.url = f"{base}/{self.vhost}"
        else:
            self.url = BROKER_URL
            self._purge()
        self.where = f"RabbitMQ at {self.url.split('@')[-1]}"

    def _purge(self) -> None:
        from services.workers.actors import Workers
        from services.workers.broker import make_broker
        broker, _ = make_broker(self.url)
        Workers(broker, self.database_url)            # declares the queues
        broker.flush_all()
        broker.close()

    def start(self, **env: str) -> None:
        log = Path(tempfile.mkstemp(prefix="baloot-worker-", suffix=".log")[1])
        env = dict(os.environ, DATABASE_URL=self.database_url, BROKER_URL=self.url,
                   BALOOT_RECONCILE_SECONDS="1", **env)
        with log.open("wb") as out:
            # A session of its own: SIGKILL goes to the dramatiq parent and its worker processes alike.
            self.procs.append(subprocess.Popen([BALOOT, "worker", "--processes", "1", "--threads", "4"],
                                               env=env, stdout=out, stderr=subprocess.STDOUT,
                                               start_new_session=True))
        self.logs.append(log)

    def alive(self) -> None:
        proc = self.procs[-1]
        if proc.poll() is not None:
            raise AssertionError(f"the worker exited with {proc.returncode}:\n{self.output()}")

    def output(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in self.logs)

    def kill(self) -> None:
        """SIGKILL the worker processes (no graceful shutdown: in-flight messages are not acknowledged)."""
        proc = self.procs[-1]
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    def restart_broker(self) -> None:
        rabbitmqctl("stop_app")
        rabbitmqctl("start_app")

    def close(self) -> None:
        for proc in self.procs:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=30)
        if self.vhost:
            subprocess.run(["rabbitmqctl", "await_startup"], capture_output=True, timeout=60)
            subprocess.run(["rabbitmqctl", "delete_vhost", self.vhost], capture_output=True, timeout=60)
        for log in self.logs:
            log.unlink(missing_ok=True)


class InProcessWorkers:
    """The stand-in when RabbitMQ is not reachable: a dramatiq Worker in this process with the reconciler."""

    where = "in-process broker (RabbitMQ not reachable)"

    def __init__(self, database_url: str):
        self.database_url = database_url
        self.rig: InProcess | None = None

    def start(self) -> None:
        from services.workers.entry import Reconciler
        self.rig = InProcess(self.database_url, threads=4)
        self.rig.add_middleware(Reconciler(self.rig.workers, 0.5))
        self.rig.start()

    def alive(self) -> None:
        self.rig.check()

    def output(self) -> str:
        return ""

    def kill(self) -> None:
        """Drop the worker and every message it had queued (the nearest in-process thing to a kill)."""
        self.rig.flush()
        self.rig.stop()
        self.rig = None

    def restart_broker(self) -> None:
        self.rig.flush()          # a broker that comes back without its messages

    def close(self) -> None:
        if self.rig is not None:
            self.rig.stop()


@pytest.fixture
async def workers(database_url, db_schema, pool):
    await add_users(pool)
    url = schema_url(database_url, db_schema)
    if await asyncio.to_thread(rabbitmq_reachable, BROKER_URL):
        backend = RabbitWorkers(url)
    else:
        backend = InProcessWorkers(url)
        message = (f"RabbitMQ is not reachable at {BROKER_URL.split('@')[-1]}: "
                   "this scenario ran with the in-process broker instead")
        print(message)
        warnings.warn(message, stacklevel=1)
    try:
        yield backend
    finally:
        backend.close()


@pytest.fixture
async def tables(pool) -> TableService:
    return (await Platform.on(pool)).tables


async def wait_for(tables: TableService, workers, table_id: str, done, what: str):
    """Poll the table every POLL seconds until ``done(table)``, at most DEADLINE seconds.

    The workers are another process, so there is no queue to join here: a bounded poll of the table's
    state is the wait.
    """
    deadline = time.monotonic() + DEADLINE
    while True:
        table = await tables.load(table_id)
        if done(table):
            return table
        workers.alive()
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {DEADLINE}s (version {table.version}, "
                                 f"{workers.where})\n{workers.output()}")
        await asyncio.sleep(POLL)


def at_least(version: int):
    return lambda table: table.version >= version or ended(table)


async def test_a_worker_process_finishes_an_all_bot_table(workers, tables):
    await tables.open_table(all_bots("t1"))

    workers.start()      # nothing was enqueued: the worker's reconciler finds the table at boot
    table = await wait_for(tables, workers, "t1", ended, "the game to end")

    rows = await stream_rows(tables.pool, "t1")
    assert_exactly_once(rows)
    assert len(rows) == table.version
    await assert_chain_holds(tables.pool, "t1")
    print(f"all-bot game of {table.version} events finished on {workers.where}")


# A long game (to 1,000): bots storing a deal per append can finish a game to 152 before a poll sees it mid-way.
LONG = msgspec.structs.replace(SAUDI, target=1000)


async def test_a_killed_worker_loses_and_duplicates_nothing(workers, tables):
    await tables.open_table(all_bots("t1", profile=LONG))
    workers.start()
    for mid_game in (40, 160):
        table = await wait_for(tables, workers, "t1", at_least(mid_game), f"version {mid_game}")
        assert not ended(table), "the game ended before the worker could be killed mid-game"
        workers.kill()
        workers.start()

    table = await wait_for(tables, workers, "t1", ended, "the game to end after the restarts")

    rows = await stream_rows(tables.pool, "t1")
    assert_exactly_once(rows)
    assert len(rows) == table.version
    await assert_chain_holds(tables.pool, "t1")


async def test_a_broker_restart_only_delays(workers, tables):
    await tables.open_table(all_bots("t1", profile=LONG))
    workers.start()
    table = await wait_for(tables, workers, "t1", at_least(60), "version 60")
    assert not ended(table)

    await asyncio.to_thread(workers.restart_broker)

    table = await wait_for(tables, workers, "t1", ended, "the game to end after the broker restart")
    rows = await stream_rows(tables.pool, "t1")
    assert_exactly_once(rows)
    await assert_chain_holds(tables.pool, "t1")
