"""Reading the global log: late commits are never skipped, rolled-back gaps never stall."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from services.eventstore import START, append, has_pending, read_all, subscribe
from tests.eventstore.helpers import events


class Collector:
    """Runs a subscription in the background and lets the test wait for what it delivered."""

    def __init__(self, pool, poll_interval: float) -> None:
        self.received: list = []
        self.changed = asyncio.Condition()
        self.task = asyncio.create_task(self._run(pool, poll_interval))

    async def _run(self, pool, poll_interval: float) -> None:
        async for event in subscribe(pool, START, poll_interval=poll_interval):
            async with self.changed:
                self.received.append(event)
                self.changed.notify_all()

    async def wait_for(self, predicate: Callable[[list], bool], timeout: float = 5.0) -> None:
        async def check() -> None:
            async with self.changed:
                await self.changed.wait_for(lambda: predicate(self.received))
        await asyncio.wait_for(check(), timeout)

    async def stop(self) -> None:
        self.task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await self.task


async def test_read_all_returns_every_stream_in_global_order(pool):
    await append(pool, "a", 0, events(1, 2))
    await append(pool, "b", 0, events(3))
    await append(pool, "a", 2, events(4))
    everything = await read_all(pool)
    assert [e.data["v"] for e in everything] == [1, 2, 3, 4]
    assert [e.data["v"] for e in await read_all(pool, everything[1].checkpoint)] == [3, 4]
    assert [e.data["v"] for e in await read_all(pool, everything[0].checkpoint, limit=2)] == [2, 3]


async def test_an_open_transaction_holds_back_later_commits_until_it_ends(pool, connect):
    early = await connect()
    tx = early.transaction()
    await tx.start()
    await append(early, "early", 0, events("early"))      # lower position, commits late
    await append(pool, "late", 0, events("late"))         # higher position, commits first
    assert await read_all(pool) == []
    assert await has_pending(pool, START)
    await tx.commit()
    both = await read_all(pool)
    assert [e.data["v"] for e in both] == ["early", "late"]
    assert not await has_pending(pool, both[-1].checkpoint)


async def test_the_pending_check_walks_the_index_not_the_table(pool):
    # Every idle projection runner asks it, its checkpoint often thousands of events behind the head. Asked
    # as an EXISTS, the planner expects matches all over the table and scans it from the start, while they
    # are all at its end: a third of a second per ask at 1.5 million events.
    from services.eventstore.store import _PENDING

    for k in range(5):
        await append(pool, f"s{k}", 0, events(*range(1000)))
    await pool.execute("ANALYZE events")
    first, last = await pool.fetch("(SELECT tx_id, position FROM events ORDER BY position LIMIT 1) UNION ALL "
                                   "(SELECT tx_id, position FROM events ORDER BY position DESC LIMIT 1)")
    plan = "\n".join(r[0] for r in await pool.fetch(f"EXPLAIN {_PENDING}", *first))
    assert "events_tx_position_idx" in plan and "Seq Scan" not in plan, plan
    assert await has_pending(pool, tuple(first))
    assert not await has_pending(pool, tuple(last))


async def test_a_late_committing_lower_position_reaches_a_running_subscriber(pool, connect):
    # The case a position-only checkpoint gets wrong: F takes its transaction id first, U then takes
    # a lower position than F's, F commits and is delivered, and only then does U commit.
    collector = Collector(pool, poll_interval=30)  # a long poll: only notifications can wake it in time
    f, u = await connect(), await connect()
    f_tx, u_tx = f.transaction(), u.transaction()
    await f_tx.start()
    await f.fetchval("SELECT pg_current_xact_id()")
    await u_tx.start()
    await append(u, "u", 0, events("u"))
    await append(f, "f", 0, events("f"))
    await f_tx.commit()
    await collector.wait_for(lambda got: len(got) == 1)
    assert [e.data["v"] for e in collector.received] == ["f"]
    await u_tx.commit()
    await collector.wait_for(lambda got: len(got) == 2)
    got = collector.received
    assert [e.data["v"] for e in got] == ["f", "u"]
    assert got[1].position < got[0].position
    await collector.stop()


async def test_a_rolled_back_append_leaves_a_gap_that_does_not_stall_readers(pool, connect):
    collector = Collector(pool, poll_interval=30)
    await append(pool, "a", 0, events(1))
    doomed = await connect()
    tx = doomed.transaction()
    await tx.start()
    await append(doomed, "b", 0, events("never"))
    await append(pool, "a", 1, events(2))
    await tx.rollback()
    await append(pool, "a", 2, events(3))
    await collector.wait_for(lambda got: len(got) == 3)
    positions = [e.position for e in collector.received]
    assert [e.data["v"] for e in collector.received] == [1, 2, 3]
    assert positions[2] - positions[0] > 2  # the rolled-back position is a real gap
    assert [e.data["v"] for e in await read_all(pool)] == [1, 2, 3]
    await collector.stop()


async def test_a_silent_end_of_an_older_transaction_is_noticed_without_a_notification(pool, connect):
    # The transaction holding the horizon back appends nothing and rolls back: no NOTIFY follows,
    # so the subscriber must find the held-back event by itself (pending check with back-off).
    collector = Collector(pool, poll_interval=30)
    holder = await connect()
    tx = holder.transaction()
    await tx.start()
    await holder.fetchval("SELECT pg_current_xact_id()")
    await append(pool, "a", 0, events("held back"))
    assert await read_all(pool) == []
    await tx.rollback()
    await collector.wait_for(lambda got: len(got) == 1)
    assert collector.received[0].data["v"] == "held back"
    await collector.stop()


async def test_subscriber_catches_up_then_follows_live(pool):
    await append(pool, "a", 0, events(*range(10)))
    collector = Collector(pool, poll_interval=30)
    await collector.wait_for(lambda got: len(got) == 10)
    await append(pool, "b", 0, events(*range(10, 15)))
    await collector.wait_for(lambda got: len(got) == 15)
    assert [e.data["v"] for e in collector.received] == list(range(15))
    await collector.stop()


async def test_concurrent_writers_are_read_once_each_in_per_stream_order(pool):
    collector = Collector(pool, poll_interval=0.2)

    async def writer(stream: str) -> None:
        for version in range(10):
            await append(pool, stream, version, events(version))

    streams = [f"s{i}" for i in range(8)]
    await asyncio.gather(*(writer(s) for s in streams))
    await collector.wait_for(lambda got: len(got) == 80)
    got = collector.received
    assert len({e.event_id for e in got}) == 80
    for stream in streams:
        assert [e.version for e in got if e.stream_id == stream] == list(range(1, 11))
    assert [e.checkpoint for e in got] == sorted(e.checkpoint for e in got)
    await collector.stop()


def sparse_readers():
    from services.fairplay.projection import fairplay_read_model
    from services.ratings import ratings_read_model, table_ratings_read_model
    from services.webhooks.outbox import webhooks_read_model
    from services.workers.projections import standings_read_model

    return {"standings": standings_read_model, "ratings": ratings_read_model,
            "table ratings": table_ratings_read_model, "webhooks": webhooks_read_model,
            "fair play": fairplay_read_model}


# The index each reader's batches walk, in the log's order: the championships' streams (migrations/0020), a few
# kinds across the log (0021), or the whole log's order (the fair-play reader: every deal's start and seed).
READERS = {"standings": "events_championships_order_idx", "ratings": "events_championships_order_idx",
           "table ratings": "events_sparse_kinds_order_idx", "webhooks": "events_sparse_kinds_order_idx",
           "fair play": "events_tx_position_idx"}


@pytest.mark.parametrize("reader", list(READERS))
async def test_a_sparse_read_model_reads_its_events_by_their_own_index(pool, reader):
    # The standings and the ratings follow the championships' streams, the table ratings and the webhooks a
    # few kinds of events, a few in a thousand of a big log; read by parameters, their batches walked the whole
    # order index from their checkpoint.
    from services.eventstore.store import _read_streams_sql

    model = sparse_readers()[reader]()
    for k in range(20):
        await append(pool, f"table-{k}", 0, events(*range(200)))
    await pool.execute("ANALYZE events")
    types = None if model.event_types is None else tuple(model.event_types)
    sql = _read_streams_sql(model.stream_prefix, types)
    async with pool.acquire() as conn:
        # A small test log: the planner would scan it. And the plan a prepared statement settles on after its
        # first executions, made without the parameters' values: it must still find the partial index.
        await conn.execute("SET enable_seqscan = off; SET plan_cache_mode = force_generic_plan")
        try:
            await conn.execute(f"PREPARE sparse_read (xid8, bigint, integer, text, text[]) AS {sql}")
            array = "NULL" if types is None else "ARRAY[" + ", ".join(f"'{t}'" for t in types) + "]"
            plan = "\n".join(r[0] for r in await conn.fetch(
                f"EXPLAIN EXECUTE sparse_read ('0', 0, 500, '{model.stream_prefix}', {array})"))
        finally:
            await conn.execute("DEALLOCATE ALL; RESET enable_seqscan; RESET plan_cache_mode")
    assert READERS[reader] in plan, plan
    assert all(other not in plan for other in set(READERS.values()) - {READERS[reader]}), plan


def test_the_indexed_kinds_are_the_migrations_and_cover_the_sparse_readers():
    from pathlib import Path
    import re

    from services.eventstore.store import INDEXED_KINDS

    sql = (Path(__file__).resolve().parents[2] / "migrations" / "0021_sparse_kinds.sql").read_text()
    listed = re.search(r"WHERE event_type IN \(([^)]*)\)", sql).group(1)
    assert set(re.findall(r"'([a-z_]+)'", listed)) == INDEXED_KINDS
    readers = sparse_readers()
    for name in ("table ratings", "webhooks"):
        assert INDEXED_KINDS.issuperset(readers[name]().event_types), name
    assert not INDEXED_KINDS.issuperset(readers["fair play"]().event_types)
