"""A rehearsal of 16 bot teams on the live path, in-process and with worker processes on RabbitMQ: the
championship runs itself to a champion and every end-state check holds; a tampered event, a wrong seed or
a read model that drifted from the log is caught by its check."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess

import pytest

from services.eventstore import NewEvent, append
from services.workers.rehearsal import Rehearsal, Tally
from services.workers.broker import rabbitmq_reachable

BROKER_URL = os.environ.get("BROKER_URL") or "amqp://guest:guest@127.0.0.1:5672/"
CHECKS = ["hash chains", "deal seeds", "read models", "bracket", "no game open", "stored once"]


def assert_sound(report, teams: int) -> None:
    assert [c.name for c in report.checks] == CHECKS
    assert all(c.ok for c in report.checks), [c for c in report.checks if not c.ok]
    assert report.ok
    assert report.champion is not None and report.champion.startswith("team-")
    assert report.rounds == (teams - 1).bit_length()               # a knock-out: log2 of the field
    assert report.games == teams - 1                                # one game per match, nobody forfeits
    assert report.bot_actions > 0 and report.events > report.bot_actions


async def tamper_a_card(r: Rehearsal, order: str) -> str:
    """Rewrite the first card played at the first (``ASC``) or last (``DESC``) table; returns its stream."""
    table_id = await r.pool.fetchval(f"SELECT table_id FROM tables_index ORDER BY table_id {order} LIMIT 1")
    stream = f"table-{table_id}"
    async with r.pool.acquire() as conn, conn.transaction():
        # The log refuses UPDATE; a tamperer with the owner's rights switches the guard off first.
        await conn.execute("SET LOCAL session_replication_role = replica")
        await conn.execute("UPDATE events SET data = jsonb_set(data, '{seat}', '3') WHERE stream_id = $1 "
                           "AND version = (SELECT min(version) FROM events WHERE stream_id = $1 "
                           "AND event_type = 'card_played')", stream)
    return stream


async def checked_while_playing_then_grown(r: Rehearsal, games: int) -> None:
    """The checks' per-stream parts done table by table as games finish: the end takes them as done, unless a
    stream grew since, which is checked again whole (a tampered event behind the new head is found)."""
    tally = Tally()
    assert await r.check_finished_tables(tally) == games
    assert await r.check_finished_tables(tally) == 0            # each finished table once
    checks = {c.name: c for c in await r.checks(tally)}
    assert all(c.ok for c in checks.values()), checks
    for name in ("hash chains", "deal seeds", "stored once"):
        assert f"({games} of the {games + 1} streams checked while the workers played)" in checks[name].detail, \
            checks[name]

    stream = await tamper_a_card(r, "DESC")
    assert (await r.check_chains(tally)).ok                     # not grown: taken as checked during play
    head = await r.pool.fetchval("SELECT max(version) FROM events WHERE stream_id = $1", stream)
    await append(r.pool, stream, head, [NewEvent(event_type="noted", data={})])
    tally.heads = {}                                            # the end's heads, read again
    chains = await r.check_chains(tally)
    assert not chains.ok and stream in chains.detail


async def tamper_and_recheck(r: Rehearsal) -> None:
    """Break what each check guards, one at a time, and see the check fail."""
    stream = await tamper_a_card(r, "ASC")
    table_id = stream.removeprefix("table-")
    chains = await r.check_chains()
    assert not chains.ok and stream in chains.detail

    async with r.pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL session_replication_role = replica")
        await conn.execute("UPDATE events SET data = jsonb_set(data, '{seed}', to_jsonb(md5('forged'))) "
                           "WHERE stream_id = $1 AND event_type = 'seed_revealed' AND version = "
                           "(SELECT min(version) FROM events WHERE stream_id = $1 AND event_type = 'seed_revealed')",
                           stream)
    seeds = await r.check_seeds()
    assert not seeds.ok and "1 seeds not matching" in seeds.detail

    # A read model that drifted from the log: the rebuild from zero puts it right, and says it differed.
    await r.pool.execute("UPDATE standings_rm SET standings = '[]'::jsonb")
    assert not (await r.check_read_models()).ok
    assert (await r.check_read_models()).ok                       # the rebuild restored it

    await r.pool.execute("UPDATE tables_index SET status = 'live' WHERE table_id = $1", table_id)
    assert not (await r.check_no_game_open()).ok


async def test_sixteen_teams_in_process(database_url, db_schema):
    async with Rehearsal(database_url, 16, seed="in-process", schema=db_schema) as r:
        report = await r.run(budget=600)
        assert_sound(report, 16)
        assert "in-process" in report.workers
        await checked_while_playing_then_grown(r, 15)
        await tamper_and_recheck(r)


def purge(url: str, database_url: str) -> None:
    """Empty the virtual host's queues of messages left by earlier runs (their tables are not in this schema)."""
    from services.workers.actors import Workers
    from services.workers.broker import make_broker

    broker, _ = make_broker(url)
    Workers(broker, database_url, schedules=True)  # declares every queue
    broker.flush_all()
    broker.close()


@pytest.fixture
async def rabbit_url(database_url):
    """RabbitMQ for one test: a virtual host of its own where rabbitmqctl can make one, else the given one
    with its queues emptied."""
    if not await asyncio.to_thread(rabbitmq_reachable, BROKER_URL):
        pytest.fail(f"RabbitMQ is not reachable at {BROKER_URL.split('@')[-1]}")
    vhost = None
    if shutil.which("rabbitmqctl") and BROKER_URL.rstrip("/").count("/") == 2:     # no virtual host named
        vhost = f"baloot-test-rehearsal-{os.getpid()}"
        subprocess.run(["rabbitmqctl", "add_vhost", vhost], check=True, capture_output=True)
        subprocess.run(["rabbitmqctl", "set_permissions", "-p", vhost, "guest", ".*", ".*", ".*"], check=True,
                       capture_output=True)
        yield f"{BROKER_URL.rstrip('/')}/{vhost}"
        subprocess.run(["rabbitmqctl", "delete_vhost", vhost], capture_output=True)
    else:
        await asyncio.to_thread(purge, BROKER_URL, database_url)
        yield BROKER_URL


async def test_sixteen_teams_with_worker_processes_on_rabbitmq(database_url, db_schema, rabbit_url):
    async with Rehearsal(database_url, 16, seed="rabbit", schema=db_schema, broker_url=rabbit_url) as r:
        report = await r.run(budget=600)
        assert_sound(report, 16)
        assert "RabbitMQ" in report.workers


async def test_refused_while_another_consumer_takes_the_work_queues(database_url, rabbit_url):
    """Two rehearsals on one virtual host would take each other's bot turns (the queues' names are the same
    for every schema) and drop them as tables they do not have: the second is refused before it makes
    anything."""
    import asyncpg
    import pika

    from services.workers.broker import make_broker

    broker, _ = make_broker(rabbit_url)
    await asyncio.to_thread(broker.declare_queue, "bots", ensure=True)     # as the workers declare it
    broker.close()
    connection = await asyncio.to_thread(pika.BlockingConnection, pika.URLParameters(rabbit_url))
    try:
        channel = connection.channel()
        channel.basic_consume("bots", lambda *_: None)        # another run's worker, listening
        conn = await asyncpg.connect(database_url)
        schemas = "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'rehearsal%'"
        before = await conn.fetchval(schemas)
        with pytest.raises(RuntimeError, match=r"already has consumers on its work queues \(bots: 1\)"):
            async with Rehearsal(database_url, 16, seed="second", broker_url=rabbit_url):
                pass
        assert await conn.fetchval(schemas) == before               # no scratch schema made
        await conn.close()
    finally:
        await asyncio.to_thread(connection.close)
