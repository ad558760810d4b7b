"""Appending: optimistic concurrency, idempotent retries, append-only table, hash chain."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from services.eventstore import (
    append_reporting,
    head_hash,
    ConcurrencyError,
    DuplicateEventError,
    NewEvent,
    append,
    read_all,
    read_stream,
    stream_version,
    verify_stream,
)
from tests.eventstore.helpers import events, wait_until_blocked


async def test_append_returns_new_version_and_stores_in_order(pool):
    assert await append(pool, "table-1", 0, events("a", "b")) == 2
    assert await append(pool, "table-1", 2, events("c")) == 3
    stored = await read_stream(pool, "table-1")
    assert [(e.version, e.data["v"]) for e in stored] == [(1, "a"), (2, "b"), (3, "c")]
    assert [e.version for e in await read_stream(pool, "table-1", from_version=2)] == [2, 3]


async def test_metadata_and_schema_version_are_stored(pool):
    event = NewEvent(event_type="bid_made", data={"seat": 1}, schema_version=3,
                     metadata={"correlation_id": "c-1", "actor": "seat-1"})
    await append(pool, "table-1", 0, [event])
    [stored] = await read_stream(pool, "table-1")
    assert (stored.event_id, stored.event_type, stored.schema_version) == (event.event_id, "bid_made", 3)
    assert stored.metadata == {"correlation_id": "c-1", "actor": "seat-1"}
    assert stored.recorded_at is not None


async def test_stale_expected_version_names_stream_expected_and_actual(pool):
    await append(pool, "table-1", 0, events(1, 2))
    with pytest.raises(ConcurrencyError) as raised:
        await append(pool, "table-1", 1, events(3))
    assert (raised.value.stream, raised.value.expected, raised.value.actual) == ("table-1", 1, 2)
    assert str(raised.value) == "stream 'table-1' is at version 2, expected version 1"
    assert await stream_version(pool, "table-1") == 2


async def test_two_concurrent_appends_at_the_same_version_exactly_one_wins(pool, connect):
    first, second, observer = await connect(), await connect(), await connect()
    tx = first.transaction()
    await tx.start()
    assert await append(first, "table-1", 0, events("first")) == 1
    # The second writer passes the version check (the first has not committed) and waits on the index.
    losing = asyncio.create_task(append(second, "table-1", 0, events("second")))
    await wait_until_blocked(observer, second.get_server_pid())
    await tx.commit()
    with pytest.raises(ConcurrencyError) as raised:
        await losing
    assert (raised.value.expected, raised.value.actual) == (0, 1)
    assert [e.data["v"] for e in await read_stream(pool, "table-1")] == ["first"]


async def test_many_racing_writers_exactly_one_wins_per_stream(pool):
    async def attempt(stream: str, writer: int) -> bool:
        try:
            await append(pool, stream, 0, events(writer))
            return True
        except ConcurrencyError:
            return False

    streams = [f"race-{i}" for i in range(20)]
    results = await asyncio.gather(*(attempt(s, w) for s in streams for w in range(4)))
    assert sum(results) == len(streams)
    for stream in streams:
        assert await stream_version(pool, stream) == 1


async def test_exact_retry_is_accepted_without_storing_twice(pool):
    batch = events("a", "b", "c")
    assert await append(pool, "table-1", 0, batch) == 3
    assert await append(pool, "table-1", 0, batch) == 3
    assert await append(pool, "table-1", None, batch) == 3
    assert [e.data["v"] for e in await read_stream(pool, "table-1")] == ["a", "b", "c"]
    assert len(await read_all(pool)) == 3


async def test_retry_after_the_stream_moved_on_is_still_a_no_op(pool):
    batch = events("a")
    await append(pool, "table-1", 0, batch)
    await append(pool, "table-1", 1, events("b"))
    assert await append(pool, "table-1", 0, batch) == 2
    assert await stream_version(pool, "table-1") == 2


async def test_stored_ids_in_a_different_append_are_refused(pool):
    a, b = events("a", "b")
    await append(pool, "table-1", 0, [a, b])
    with pytest.raises(DuplicateEventError):
        await append(pool, "table-1", 2, [a, *events("c")])
    with pytest.raises(DuplicateEventError):
        await append(pool, "table-2", 0, [*events("x"), b])
    with pytest.raises(DuplicateEventError):
        await append(pool, "table-1", 0, [b, a])
    assert await stream_version(pool, "table-1") == 2
    assert await stream_version(pool, "table-2") == 0


async def test_empty_append_changes_nothing(pool):
    assert await append(pool, "table-1", 0, []) == 0
    await append(pool, "table-1", 0, events("a"))
    assert await append(pool, "table-1", 5, []) == 1
    assert len(await read_all(pool)) == 1


async def test_update_delete_and_truncate_are_refused_by_the_database(pool):
    await append(pool, "table-1", 0, events("a"))
    for statement in ("UPDATE events SET data = '{\"v\": \"b\"}'", "DELETE FROM events",
                      "TRUNCATE events", "UPDATE events SET version = 2"):
        with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
            await pool.execute(statement)
    assert [e.data["v"] for e in await read_stream(pool, "table-1")] == ["a"]


async def test_chain_holds_for_untouched_streams(pool):
    await append(pool, "table-1", 0, events(*range(5)))
    await append(pool, "table-1", 5, events(*range(5, 8)))
    await append(pool, "table-2", 0, events("x"))
    assert await verify_stream(pool, "table-1") is None
    assert await verify_stream(pool, "table-2") is None
    assert await verify_stream(pool, "no-such-stream") is None


async def test_tampering_is_detected_at_the_changed_event(pool):
    await append(pool, "table-1", 0, events(*range(6)))
    await append(pool, "table-2", 0, events(*range(3)))
    # A superuser can switch the guard off; the chain still tells.
    await pool.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
    await pool.execute("""UPDATE events SET data = '{"v": 99}' WHERE stream_id = 'table-1' AND version = 4""")
    await pool.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
    assert await verify_stream(pool, "table-1") == 4
    assert await verify_stream(pool, "table-2") is None


async def test_a_recomputed_hash_moves_the_break_to_the_next_link(pool):
    await append(pool, "table-1", 0, events(*range(6)))
    await pool.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
    await pool.execute("""
        UPDATE events SET data = '{"v": 99}',
               hash = event_hash(prev_hash, stream_id, version, event_type, schema_version, '{"v": 99}')
         WHERE stream_id = 'table-1' AND version = 2""")
    await pool.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
    assert await verify_stream(pool, "table-1") == 3


async def test_a_removed_event_is_detected(connect):
    conn = await connect()
    await append(conn, "table-1", 0, events(*range(5)))
    await conn.execute("SET session_replication_role = replica")  # superuser: triggers off
    await conn.execute("DELETE FROM events WHERE stream_id = 'table-1' AND version = 3")
    await conn.execute("RESET session_replication_role")
    assert await verify_stream(conn, "table-1") == 4


async def test_a_transaction_older_than_the_stream_head_must_retry(pool, connect):
    older = await connect()
    tx = older.transaction()
    await tx.start()
    await older.fetchval("SELECT pg_current_xact_id()")  # this transaction now has the older id
    await append(pool, "table-1", 0, events("a"))
    with pytest.raises(ConcurrencyError, match="retry in a new transaction"):
        await append(older, "table-1", 1, events("b"))
    await tx.rollback()
    assert await append(older, "table-1", 1, events("b")) == 2


async def test_the_same_append_sent_twice_at_once_is_stored_once(pool, connect):
    batch = events("a", "b")
    first, second, observer = await connect(), await connect(), await connect()
    tx = first.transaction()
    await tx.start()
    await append(first, "table-1", 0, batch)
    retry = asyncio.create_task(append(second, "table-1", 0, batch))  # e.g. a retry after a timeout
    await wait_until_blocked(observer, second.get_server_pid())
    await tx.commit()
    assert await retry == 2
    assert [e.data["v"] for e in await read_stream(pool, "table-1")] == ["a", "b"]


async def test_append_reporting_tells_an_exact_retry_from_a_real_append(pool):
    batch = events(1, 2)
    assert await append_reporting(pool, "s", 0, batch) == (2, True)
    assert await append_reporting(pool, "s", 0, batch) == (2, False)     # the same ids again: nothing stored
    assert len(await read_stream(pool, "s")) == 2


async def test_concurrent_exact_retries_report_one_store(pool):
    batch = events(1, 2, 3)
    results = await asyncio.gather(*(append_reporting(pool, "c", 0, batch) for _ in range(4)))
    assert sorted(r.stored for r in results) == [False, False, False, True]
    assert {r.version for r in results} == {3}


async def test_append_reporting_gives_the_head_hash_a_receipt_signs(pool):
    result = await append_reporting(pool, "h", 0, [NewEvent(event_type="a", data={"n": 1}),
                                                   NewEvent(event_type="b", data={"n": 2})])
    version, stored = result  # still a pair for existing callers
    assert (version, stored) == (2, True)
    assert result.head_hash == await head_hash(pool, "h") == await head_hash(pool, "h", 2)
    assert result.head_hash == await pool.fetchval("SELECT hash FROM events WHERE stream_id = 'h' AND version = 2")
    assert (await append_reporting(pool, "h", 2, [])).head_hash == result.head_hash
    assert await head_hash(pool, "h", 3) is None and await head_hash(pool, "nothing") is None


async def test_appends_to_more_streams_than_one_notification_holds_are_each_named_with_their_version(pool, connect):
    # Under load the NOTIFYs lag and one carries many streams (here: a round's tables created at once). A
    # notification naming no stream wakes every follower of every table to read: each stream must be named.
    from services.eventstore.store import CHANNEL, PAYLOAD_BYTES, append_many, notified_streams

    names = {f"table-{k:04d}-{'x' * 32}": 1 for k in range(400)}      # ~20,000 bytes of names
    heard: dict = {}
    payloads: list[str] = []
    everything = asyncio.Event()

    def on_notify(_conn, _pid, _channel, payload: str) -> None:
        payloads.append(payload)
        named = notified_streams(payload)
        heard.update(named if named is not None else {"(any stream)": None})
        if names.keys() <= heard.keys() or "(any stream)" in heard:
            everything.set()

    listener = await connect()
    await listener.add_listener(CHANNEL, on_notify)
    await append_many(pool, [(name, 0, events(1)) for name in names])
    await asyncio.wait_for(everything.wait(), 10)
    assert "(any stream)" not in heard
    assert {name: heard[name] for name in names} == names
    assert len(payloads) >= 3 and all(len(p.encode()) <= PAYLOAD_BYTES for p in payloads)
