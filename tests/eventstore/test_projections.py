"""The projection runner: exactly-once effect, poison events, crashes, rebuilds, one runner at a time."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from services.eventstore import (
    Checkpoint,
    NewEvent,
    ProjectionFailed,
    ProjectionRunner,
    append,
    projection,
    projection_state,
    read_all,
)
from tests.eventstore.helpers import events

READ_MODEL = """
CREATE TABLE tallies (stream_id text PRIMARY KEY, n integer NOT NULL, trail text NOT NULL);
CREATE TABLE applied (position bigint NOT NULL)  -- no key on purpose: a double apply would show
"""


async def apply_tally(conn: asyncpg.Connection, event) -> None:
    """Count events per stream and keep their values in order (order-sensitive on purpose)."""
    if event.data.get("poison"):
        raise ValueError(f"cannot tally {event.data}")
    await conn.execute("""
        INSERT INTO tallies AS t VALUES ($1, 1, $2)
        ON CONFLICT (stream_id) DO UPDATE SET n = t.n + 1, trail = t.trail || ',' || excluded.trail""",
        event.stream_id, str(event.data["v"]))
    await conn.execute("INSERT INTO applied VALUES ($1)", event.position)


async def reset_tally(conn: asyncpg.Connection) -> None:
    await conn.execute("TRUNCATE tallies, applied")


tally = projection("tally", apply_tally, reset_tally)


@pytest.fixture
async def read_model(pool):
    await pool.execute(READ_MODEL)


async def tallies(pool) -> dict[str, tuple[int, str]]:
    return {r["stream_id"]: (r["n"], r["trail"]) for r in await pool.fetch("SELECT * FROM tallies")}


async def last_position(pool) -> int:
    """The position of the last event committed (read from the table itself: ``read_all`` stops at the log's
    horizon, which a transaction open elsewhere on the server, another test process's, holds back)."""
    return await pool.fetchval("SELECT position FROM events ORDER BY tx_id DESC, position DESC LIMIT 1")


async def wait_for_position(runner: ProjectionRunner, position: int, timeout: float = 30.0) -> None:
    await asyncio.wait_for(runner.wait_until(
        lambda r: r.checkpoint is not None and r.checkpoint.position >= position), timeout)


async def stop(task: asyncio.Task) -> None:
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_catch_up_then_live_with_checkpoint_in_the_database(pool, read_model):
    await append(pool, "a", 0, events(1, 2))
    runner = ProjectionRunner(pool, tally, poll_interval=30)
    task = asyncio.create_task(runner.run())
    await wait_for_position(runner, 2)
    await append(pool, "b", 0, events(3))
    last = (await read_all(pool))[-1]
    await wait_for_position(runner, last.position)
    assert await tallies(pool) == {"a": (2, "1,2"), "b": (1, "3")}
    state = await projection_state(pool, "tally")
    assert Checkpoint(state["tx_id"], state["position"]) == last.checkpoint
    assert state["status"] == "running"
    await stop(task)


async def test_a_poison_event_stops_the_projection_with_its_checkpoint_unmoved(pool, read_model):
    await append(pool, "a", 0, events(1, 2))
    runner = ProjectionRunner(pool, tally)
    before = await runner.catch_up()
    await append(pool, "a", 2, events(3))
    await append(pool, "b", 0, events(4))
    await append(pool, "p", 0, [NewEvent(event_type="noted", data={"poison": True})])
    await append(pool, "b", 1, events(5))
    everything = await read_all(pool)
    poison = next(e for e in everything if e.data.get("poison"))
    with pytest.raises(ProjectionFailed) as raised:
        await runner.run()
    assert raised.value.event.position == poison.position
    assert isinstance(raised.value.cause, ValueError)
    state = await projection_state(pool, "tally")
    assert state["status"] == "failed"
    assert state["failed_position"] == poison.position
    assert "ValueError: cannot tally" in state["error"]
    # The events before it in the same batch are applied and checkpointed; nothing from it on.
    before_poison = everything[everything.index(poison) - 1]
    assert Checkpoint(state["tx_id"], state["position"]) == before_poison.checkpoint
    assert before != before_poison.checkpoint
    applied = [r["position"] for r in await pool.fetch("SELECT position FROM applied ORDER BY 1")]
    assert applied == sorted(e.position for e in everything[:everything.index(poison)])
    # Running again stops at the same event without moving anything.
    with pytest.raises(ProjectionFailed):
        await ProjectionRunner(pool, tally).run()
    assert (await projection_state(pool, "tally"))["position"] == before_poison.position


async def test_a_poison_first_event_leaves_the_checkpoint_where_it_was(pool, read_model):
    await append(pool, "a", 0, events(1))
    runner = ProjectionRunner(pool, tally)
    before = await runner.catch_up()
    await append(pool, "a", 1, [NewEvent(event_type="noted", data={"poison": True}), *events(3)])
    with pytest.raises(ProjectionFailed):
        await runner.catch_up()
    state = await projection_state(pool, "tally")
    assert Checkpoint(state["tx_id"], state["position"]) == before
    assert await tallies(pool) == {"a": (1, "1")}


async def test_a_crash_between_read_model_write_and_checkpoint_applies_nothing_twice(pool, read_model):
    crashed = asyncio.Event()

    async def apply_then_crash(conn, event):
        await apply_tally(conn, event)
        if event.data["v"] == 3 and not crashed.is_set():
            crashed.set()
            # The read model row for this event is written; now the process "dies" before committing.
            await conn.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    fragile = projection("tally", apply_then_crash, reset_tally)
    await append(pool, "a", 0, events(1, 2))
    await ProjectionRunner(pool, fragile).catch_up()
    await append(pool, "a", 2, events(3, 4))
    await append(pool, "b", 0, events(5))
    with pytest.raises((asyncpg.PostgresConnectionError, asyncpg.InterfaceError, ConnectionError)):
        await ProjectionRunner(pool, fragile).catch_up()
    assert crashed.is_set()
    assert await tallies(pool) == {"a": (2, "1,2")}
    assert (await projection_state(pool, "tally"))["status"] == "running"  # a crash is not a poison event
    await ProjectionRunner(pool, fragile).catch_up()
    assert await tallies(pool) == {"a": (4, "1,2,3,4"), "b": (1, "5")}
    applied = [r["position"] for r in await pool.fetch("SELECT position FROM applied")]
    assert sorted(applied) == sorted(e.position for e in await read_all(pool))


async def test_rebuild_from_zero_equals_incremental(pool, read_model):
    runner = ProjectionRunner(pool, tally, batch_size=7, poll_interval=0.2)
    task = asyncio.create_task(runner.run())

    async def writer(stream: str) -> None:
        for version in range(15):
            await append(pool, stream, version, events(f"{stream}.{version}"))

    await asyncio.gather(*(writer(f"s{i}") for i in range(6)))
    last = (await read_all(pool, limit=1000))[-1]
    await wait_for_position(runner, last.position)
    await stop(task)
    incremental = await tallies(pool)
    assert len(incremental) == 6 and all(n == 15 for n, _ in incremental.values())

    await pool.execute("UPDATE tallies SET n = 0")  # damage the read model; a rebuild must not care
    checkpoint = await ProjectionRunner(pool, tally, batch_size=4).rebuild()
    assert checkpoint == last.checkpoint
    assert await tallies(pool) == incremental
    assert await pool.fetchval("SELECT count(*) FROM applied") == 90


async def test_only_one_runner_is_active_per_projection(pool, read_model):
    first = ProjectionRunner(pool, tally, poll_interval=30)
    second = ProjectionRunner(pool, tally, poll_interval=0.05)
    first_task = asyncio.create_task(first.run())
    await asyncio.wait_for(first.wait_until(lambda r: r.holds_lock), 5)
    second_task = asyncio.create_task(second.run())
    await append(pool, "a", 0, events(1, 2, 3))
    last = (await read_all(pool))[-1]
    await wait_for_position(first, last.position)
    assert not second.holds_lock and second.checkpoint is None
    await stop(first_task)  # the standby takes over from the stored checkpoint
    await asyncio.wait_for(second.wait_until(lambda r: r.holds_lock), 5)
    await append(pool, "a", 3, events(4))
    last = (await read_all(pool))[-1]
    await wait_for_position(second, last.position)
    assert await tallies(pool) == {"a": (4, "1,2,3,4")}
    assert await pool.fetchval("SELECT count(*) FROM applied") == 4
    await stop(second_task)


async def visible(pool, n: int, timeout: float = 10.0) -> None:
    """Wait (bounded) until the first ``n`` events are past the read horizon: a transaction running anywhere in
    the cluster (another test, another database) holds the horizon back until it ends."""
    async def seen() -> None:
        while len(await read_all(pool)) < n:
            await asyncio.sleep(0.01)
    await asyncio.wait_for(seen(), timeout)


async def test_a_projection_of_some_streams_reads_only_them_and_its_checkpoint_passes_the_rest(pool, read_model):
    only_a = projection("tally_a", apply_tally, reset_tally, stream_prefix="a-")
    await append(pool, "a-1", 0, events(1))
    await append(pool, "b-1", 0, events(2, 3))
    await append(pool, "a-2", 0, events(4))
    await append(pool, "b-2", 0, events(5))
    await visible(pool, 5)
    runner = ProjectionRunner(pool, only_a, batch_size=1)      # a batch of one: the filter and the limit meet
    reached = await runner.catch_up()
    assert await tallies(pool) == {"a-1": (1, "1"), "a-2": (1, "4")}
    applied = [r["position"] for r in await pool.fetch("SELECT position FROM applied ORDER BY position")]
    everything = await read_all(pool)
    assert applied == [e.position for e in everything if e.stream_id.startswith("a-")]
    assert reached == everything[-1].checkpoint                   # past the other streams' last events
    await append(pool, "b-1", 2, events(6))
    await visible(pool, 6)
    assert await runner.catch_up() == (await read_all(pool))[-1].checkpoint
    assert await tallies(pool) == {"a-1": (1, "1"), "a-2": (1, "4")}
    assert await runner.rebuild() == (await read_all(pool))[-1].checkpoint
    assert await tallies(pool) == {"a-1": (1, "1"), "a-2": (1, "4")}


async def test_passing_over_other_streams_is_not_stored_at_every_step_but_at_the_end_of_a_catch_up(
        pool, read_model, monkeypatch):
    # A busy log's other streams: each step that only passes over them would be a transaction and a WAL
    # flush. A following runner moves its checkpoint on in memory and stores it with its next batch (or once a
    # while); a catch-up stores where it got to before it returns.
    only_a = projection("tally_a", apply_tally, reset_tally, stream_prefix="a-")
    await append(pool, "a-1", 0, events(1))
    await visible(pool, 1)
    import services.eventstore.subscriptions as subscriptions
    monkeypatch.setattr(subscriptions, "SKIPPED_SAVE_SECONDS", 3600.0)   # "once a while" not within this test
    # Other streams' notifications do not wake it: a short poll finds them.
    runner = ProjectionRunner(pool, only_a, poll_interval=0.05)
    task = asyncio.create_task(runner.run())
    try:
        await wait_for_position(runner, await last_position(pool))
        stored = await projection_state(pool, "tally_a")
        for k in range(3):
            await append(pool, f"b-{k}", 0, events(10 + k))
        await visible(pool, 4)
        last = (await read_all(pool))[-1]
        await wait_for_position(runner, last.position)               # passed over, in memory
        assert runner.checkpoint == last.checkpoint and runner.saved != runner.checkpoint
        assert (await projection_state(pool, "tally_a"))["position"] == stored["position"]    # not stored yet
        await append(pool, "a-2", 0, events(5))                       # a batch of its own: stored with it
        await visible(pool, 5)
        mine = (await read_all(pool))[-1]
        await wait_for_position(runner, mine.position)
        assert (await projection_state(pool, "tally_a"))["position"] == mine.position
        monkeypatch.setattr(subscriptions, "SKIPPED_SAVE_SECONDS", 0.0)     # "once a while": now, idle too
        await append(pool, "b-5", 0, events(8))
        await visible(pool, 6)
        await asyncio.wait_for(runner.wait_until(
            lambda r: r.saved is not None and r.saved.position == r.checkpoint.position > mine.position), 5)
        assert (await projection_state(pool, "tally_a"))["position"] == runner.checkpoint.position
    finally:
        await stop(task)
    await append(pool, "b-9", 0, events(9))
    await visible(pool, 7)
    reached = await ProjectionRunner(pool, only_a).catch_up()
    assert (await projection_state(pool, "tally_a"))["position"] == reached.position == \
        await last_position(pool)
    assert await tallies(pool) == {"a-1": (1, "1"), "a-2": (1, "5")}


async def test_with_a_lull_a_projection_passing_over_a_busy_log_reads_once_a_lull_not_at_every_event(pool):
    # Fair play reads a few kinds of the tables' events, so every card played at every table notifies it: with a
    # lull (``min_interval``, the workers'), a read that only passed over others' events waits it out as one
    # that applied some does; whoever waits for the runner (``wait_until``) cuts the lull short.
    seen: dict[str, list] = {"lulled": [], "control": []}

    def kinds(name: str):
        async def apply(conn, event) -> None:
            seen[name].append(event.data["v"])
        return projection(f"kinds_{name}", apply, stream_prefix="table-", event_types=("ended",))

    lulled = ProjectionRunner(pool, kinds("lulled"), poll_interval=3600, min_interval=3600)
    control = ProjectionRunner(pool, kinds("control"), poll_interval=3600)       # no lull: reads at every notification
    tasks = [asyncio.create_task(r.run()) for r in (lulled, control)]
    try:
        await append(pool, "table-a", 0, events(1))                     # a card played: passed over by both
        first = await last_position(pool)
        await wait_for_position(lulled, first)
        await wait_for_position(control, first)
        reads = lulled.reads, control.reads
        for v in range(2, 13):                                           # eleven more, one at a time
            await append(pool, "table-a", v - 1, events(v))
            await wait_for_position(control, await last_position(pool))
        assert control.reads - reads[1] >= 11                            # each notified and read at once
        assert lulled.reads - reads[0] <= 4, lulled.reads - reads[0]     # then lulled (one read, give or take)
        await append(pool, "table-a", 12, events(13, event_type="ended"))
        ended = await last_position(pool)
        await asyncio.wait_for(asyncio.gather(wait_for_position(lulled, ended), wait_for_position(control, ended)), 10)
        assert seen == {"lulled": [13], "control": [13]}
    finally:
        for task in tasks:
            await stop(task)


async def test_a_batch_at_once_and_a_poison_in_it_still_found_with_the_good_prefix_kept(pool, read_model):
    batches = []

    async def apply_all(conn, batch):
        batches.append(len(batch))
        for event in batch:
            await apply_tally(conn, event)

    batched = projection("tally_batched", apply_tally, reset_tally, apply_batch=apply_all)
    await append(pool, "a", 0, events(1, 2, 3))
    runner = ProjectionRunner(pool, batched)
    await runner.catch_up()
    assert batches == [3] and await tallies(pool) == {"a": (3, "1,2,3")}
    await append(pool, "a", 3, events(4))
    await append(pool, "p", 0, [NewEvent(event_type="noted", data={"poison": True})])
    poison = (await read_all(pool))[-1]
    with pytest.raises(ProjectionFailed) as raised:
        await runner.catch_up()
    assert raised.value.event.position == poison.position
    assert await tallies(pool) == {"a": (4, "1,2,3,4")}            # the event before the poison is kept
    assert (await projection_state(pool, "tally_batched"))["failed_position"] == poison.position


async def test_a_projection_of_some_kinds_of_event_reads_only_those_and_its_checkpoint_passes_the_rest(
        pool, read_model):
    kinds = projection("tally_kinds", apply_tally, reset_tally, stream_prefix="table-",
                       event_types=("opened", "ended"))
    await append(pool, "table-a", 0, [*events(1, event_type="opened"), *events(2, 3), *events(4, event_type="ended")])
    await append(pool, "championship-x", 0, events(5, event_type="opened"))
    runner = ProjectionRunner(pool, kinds)
    await runner.catch_up()
    assert await tallies(pool) == {"table-a": (2, "1,4")}           # card plays and other streams skipped
    assert runner.checkpoint == (await read_all(pool))[-1].checkpoint


def test_a_projection_of_some_streams_is_woken_only_by_their_notifications():
    """A NOTIFY names the streams appended to (``stream@version``): a runner following one prefix sleeps
    through the others' (every card played at every table would wake a projection of championships), and
    wakes on its own and on a notification that names no stream."""
    from services.eventstore.store import _payloads, notified_streams
    from services.eventstore.subscriptions import _Wakeup

    [payload] = _payloads({"table-a": 12, "table-b": None})
    assert notified_streams(payload) == {"table-a": 12, "table-b": None}
    champions = _Wakeup("championship-")
    champions(None, 0, "baloot_events", payload)
    assert not champions.event.is_set()
    champions(None, 0, "baloot_events", _payloads({"table-a": 13, "championship-c": 4})[0])
    assert champions.event.is_set()
    for anything in ("", *_payloads({"x@y": 1})):           # names no stream (or one it cannot name): wakes
        woken = _Wakeup("championship-")
        woken(None, 0, "baloot_events", anything)
        assert woken.event.is_set()
    everyone = _Wakeup()                                   # no prefix: every notification wakes it
    everyone(None, 0, "baloot_events", payload)
    assert everyone.event.is_set()
