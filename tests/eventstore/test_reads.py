"""The log's reads beyond a stream (``services.eventstore.reads``): heads, which streams hold which kinds, counts,
a stream's state some seconds ago, the events of some kinds decoded through their codec's upcasters."""

from __future__ import annotations

import msgspec
import pytest

from services.eventstore import Codec, NewEvent, Upcasters, append, read_all, reads


def ev(kind: str, **data) -> NewEvent:
    return NewEvent(event_type=kind, data=data)


async def fill(pool) -> None:
    await append(pool, "table-a", 0, [ev("table_opened"), ev("card_played"), ev("game_ended")])
    await append(pool, "table-b", 0, [ev("table_opened"), ev("card_played")])
    await append(pool, "championship-1", 0, [ev("championship_created")])
    await append(pool, "championship-2", 0, [ev("championship_created"), ev("championship_finished")])
    await append(pool, "other-3", 0, [ev("championship_created")])


async def test_heads_counts_and_positions(pool):
    assert (await reads.head_position(pool), await reads.count(pool)) == (0, 0)
    await fill(pool)
    assert await reads.count(pool) == 9 == await reads.head_position(pool)
    assert await reads.stream_heads(pool) == {"table-a": 3, "table-b": 2, "championship-1": 1,
                                              "championship-2": 2, "other-3": 1}
    assert await reads.stream_position(pool, "table-b") == 5 and await reads.stream_position(pool, "x") is None
    last = await reads.last_events(pool, ["table-a", "table-b", "nowhere"])
    assert {s: (h.version, h.event_type) for s, h in last.items()} == {"table-a": (3, "game_ended"),
                                                                        "table-b": (2, "card_played")}
    # Nothing was stored an hour ago; everything was by now.
    assert await reads.last_events(pool, ["table-a"], quiet_seconds=3600) == {}
    assert list(await reads.last_events(pool, ["table-a"], quiet_seconds=0)) == ["table-a"]
    assert await reads.version_recorded_by(pool, "table-a", 3600) == 0
    assert await reads.version_recorded_by(pool, "table-a", 0) == 3
    first = (await read_all(pool))[0]
    assert await reads.first_recorded(pool, ["table-a", "nowhere"]) == {"table-a": first.recorded_at}
    third = (await read_all(pool))[2]
    assert await reads.count_after(pool, third.checkpoint) == 6


async def test_which_streams_hold_which_kinds(pool):
    await fill(pool)
    assert await reads.streams_holding(pool, ["table-a", "table-b", "nowhere"], ("game_ended", "balut_ended")) \
        == {"table-a"}
    assert await reads.streams_begun_by(pool, "championship_created", lacking=("championship_finished",),
                                        prefix="championship-") == ["championship-1"]
    assert sorted(await reads.streams_begun_by(pool, "championship_created")) == [
        "championship-1", "championship-2", "other-3"]
    with pytest.raises(ValueError):
        await reads.streams_holding(pool, ["table-a"], ("game_ended' OR true --",))


async def test_the_events_of_some_kinds_come_in_the_logs_order_and_decode_upcast(pool):
    class Called(msgspec.Struct, frozen=True, tag="referee_called"):
        call: int
        reason: str
    Called.schema_version = 2                                  # v1 had no reason
    upcasters = Upcasters()
    upcasters.register("referee_called", 1)(lambda d: {**d, "reason": "unsaid"})
    codec = Codec((Called,), upcasters)
    await append(pool, "table-a", 0, [NewEvent(event_type="referee_called", data={"call": 1}, schema_version=1)])
    await append(pool, "table-b", 0, [ev("card_played")])
    await append(pool, "table-b", 1, [codec.encode(Called(call=1, reason="slow"))])
    await append(pool, "table-c", 0, [codec.encode(Called(call=7, reason="other"))])
    got = await reads.read_kinds(pool, ("referee_called",), ["table-a", "table-b"])
    assert [(e.stream_id, codec.decode(e)) for e in got] == [("table-a", Called(1, "unsaid")),
                                                              ("table-b", Called(1, "slow"))]
    assert [e.stream_id for e in await reads.read_kinds(pool, ("referee_called",))] == ["table-a", "table-b",
                                                                                         "table-c"]
    assert await reads.read_kinds(pool, ("referee_called",), []) == []


async def test_commands_and_ids_counted_and_streams_audited(pool):
    await append(pool, "table-a", 0, [NewEvent(event_type="card_played", data={}, metadata={"command_id": "bot:1"}),
                                      NewEvent(event_type="card_played", data={}, metadata={"command_id": "bot:1"}),
                                      NewEvent(event_type="deal_started", data={"commitment": "c1"},
                                               metadata={"command_id": "p:2"})])
    await append(pool, "table-b", 0, [NewEvent(event_type="seed_revealed", data={"seed": "s1"},
                                               metadata={"command_id": "bot:1"})])
    assert await reads.commands_counted(pool, "bot:") == 2                  # one a stream, however many events
    assert await reads.duplicate_event_ids(pool) == 0
    audit = {a.stream_id: a for a in await reads.audit_streams(pool, ["table-a", "table-b"],
                                                                ("deal_started", "seed_revealed"),
                                                                ("commitment", "seed"))}
    a = audit["table-a"]
    assert (a.head, a.gap, a.broken, a.split, a.fields) == (3, False, None, 0, [["deal_started", "c1", None]])
    assert audit["table-b"].fields == [["seed_revealed", None, "s1"]]


async def plan(pool, sql: str, *args) -> str:
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        return "\n".join(r[0] for r in await conn.fetch("EXPLAIN " + sql, *args))


async def test_the_reads_of_a_few_kinds_use_the_logs_indexes_of_them(pool):
    """The kinds written into the statements as the partial indexes name them: with scans off the planner takes
    each index, which it could not if the kinds were parameters or did not match."""
    unfinished = reads.begun_statement("championship_created", lacking=("championship_finished",),
                                       prefix="championship-")
    assert "events_championship_lifecycle_idx" in await plan(pool, unfinished)
    boards = reads.begun_statement("board_set_opened", lacking=("board_set_revealed",))
    assert "events_board_sets_idx" in await plan(pool, boards)
    calls = reads.kinds_statement(("referee_called", "referee_call_claimed", "ruling_made"))
    assert "events_referee_calls_idx" in await plan(pool, calls)
    assert "events_game_ends_idx" in await plan(pool, reads.holding_statement(("game_ended",)), ["table-a"])
