"""Exactly-once effect of the background work, on real PostgreSQL and the in-process broker.

A message delivered twice, a clock that fires after the player acted, a bot move retried: one effect or
none. A human seat that runs out of time gets the table's consequence. Work nobody enqueued (or whose
message was lost) is found again by the reconciler.
"""

from __future__ import annotations

import asyncio
import time

import msgspec
import pytest

from domain.baloot import game as game_mod
from domain.baloot.events import BidMade, CardPlayed, DoubleCalled, GameEnded, SeedRevealed
from domain.baloot.views import view
from services.errors import StaleVersion
from services.tables import CODEC, SeatHandedToBot, Table, command_digest, fold_rows
from domain.table import game_of
from services.access.policy import Sight
from services.workers import actors
from services.tables.pending import pending_work
from tests.workers.helpers import (
    HUMAN, InProcess, all_bots, assert_chain_holds, assert_exactly_once, commands_of, ended,
    human_at_seat_0, stream_rows,
)


async def play_bots_until_clock(rig: InProcess, table_id: str) -> Table:
    """Move the bot seats by calling their actor directly until the human seat's clock is what is pending."""
    svc = await rig.tables()
    for _ in range(200):
        table = await svc.load(table_id)
        work = pending_work(table)
        assert work is not None, "the game stopped waiting"
        if work.kind == "clock":
            return table
        assert await rig.workers.play_bot_turn(table_id, work.version) == "done"
    raise AssertionError("the human seat never got the turn")


async def wait_until_due(svc, table: Table) -> None:
    """Let the clock's own due time pass (the clock's deadline, not a wait for work)."""
    work = pending_work(table)
    now = await svc.pool.fetchval("SELECT now()")
    if work.due > now:
        await asyncio.sleep((work.due - now).total_seconds())


def table_before(svc, rows, version: int) -> Table:
    return fold_rows(Table(), rows[:version], svc.seeds.deal_seed)


# ------------------------------------------------------------------ delivered twice


async def test_bot_turn_run_twice_stores_one_run(rig):
    svc = await rig.tables()
    table = await svc.open_table(all_bots("t1"))
    v = pending_work(table).version

    first = await rig.workers.play_bot_turn("t1", v)
    stored = await stream_rows(svc.pool, "t1")
    second = await rig.workers.play_bot_turn("t1", v)

    assert (first, second) == ("done", "stale")
    rows = await stream_rows(svc.pool, "t1")
    assert commands_of(rows)[f"bot:{v}"][0] == v + 1
    assert len(rows) == len(stored)                      # the second delivery stored nothing
    assert_exactly_once(rows)


async def test_two_deliveries_at_once_store_one_action(rig):
    """Three copies of one message at once: one stores the action and reports "done"; the others are
    "stale" or "replayed" (an exact retry is no new effect, so the after-append hooks run once)."""
    svc = await rig.tables()
    for i in range(10):
        await svc.open_table(all_bots(f"t{i}"))
    versions = [pending_work(await svc.load(f"t{i}")).version for i in range(10)]

    outcomes = await asyncio.gather(*(
        asyncio.gather(*(rig.workers.play_bot_turn(f"t{i}", v) for _ in range(3)))
        for i, v in enumerate(versions)))
    assert [o.count("done") for o in outcomes] == [1] * 10, outcomes

    for i in range(10):
        rows = await stream_rows(svc.pool, f"t{i}")
        assert_exactly_once(rows)
        first = [r for r in rows if r.version > versions[i]][0]
        bots = [r for r in rows if r.tx_id == first.tx_id]
        assert len(bots) > 1 and all(r.metadata["command_id"].startswith("bot:") for r in bots)


async def test_same_message_sent_twice_has_one_effect_and_the_game_finishes(rig):
    svc = await rig.tables()
    table = await svc.open_table(all_bots("t1"))
    v = pending_work(table).version
    message = rig.workers.bot_turn.message("t1", v)
    rig.broker.enqueue(message)
    rig.broker.enqueue(message)          # the same message (same id) delivered again
    rig.start()

    table = await rig.drain_until(svc, "t1", ended)

    rows = await stream_rows(svc.pool, "t1")
    commands = assert_exactly_once(rows)
    # Stored once, from the version it was decided at: one batch (a first bid that buys the contract at once,
    # Sun from the first seat, stores the contract with it: two events, one command).
    assert commands[f"bot:{v}"][0] == v + 1
    await assert_chain_holds(svc.pool, "t1")


async def test_clock_run_twice_applies_the_timeout_once(rig):
    svc = await rig.tables()
    await svc.open_table(human_at_seat_0("t1", "auto_play"))
    table = await play_bots_until_clock(rig, "t1")
    v = table.version
    await wait_until_due(svc, table)

    first = await rig.workers.run_turn_clock("t1", v)
    second = await rig.workers.run_turn_clock("t1", v)

    assert (first, second) == ("done", "stale")
    rows = await stream_rows(svc.pool, "t1")
    assert commands_of(rows)[f"clock:{v}"][0] == v + 1           # one batch (a pass may end the auction too)
    assert_exactly_once(rows)


async def test_clock_delivered_before_it_is_due_waits_again(rig):
    svc = await rig.tables()
    await svc.open_table(human_at_seat_0("t1", "forfeit", turn_seconds=600))
    table = await play_bots_until_clock(rig, "t1")
    waiting = rig.queued("clocks")

    assert await rig.workers.run_turn_clock("t1", table.version) == "early"

    assert (await svc.load("t1")).version == table.version
    assert rig.queued("clocks") == waiting + 1


# ------------------------------------------------------------------ the player acted first


async def test_clock_firing_after_the_player_acted_does_nothing(rig):
    svc = await rig.tables()
    await svc.open_table(human_at_seat_0("t1", "forfeit"))
    table = await play_bots_until_clock(rig, "t1")
    v = table.version
    choice = view(table.game.deal, 0).legal_actions[0]
    await svc.execute("t1", "human-1", lambda t: choice, actor=HUMAN, role="player", digest=command_digest(choice),
                      seat=0, expected_version=v)
    await wait_until_due(svc, table)   # the clock of version v is due now, and the seat has acted

    assert await rig.workers.run_turn_clock("t1", v) == "stale"

    rows = await stream_rows(svc.pool, "t1")
    commands = commands_of(rows)
    assert f"clock:{v}" not in commands
    assert commands["human-1"][0] == v + 1
    assert not any(isinstance(CODEC.decode(r), GameEnded) for r in rows)


async def test_player_acting_after_the_clock_fired_is_refused(rig):
    svc = await rig.tables()
    await svc.open_table(human_at_seat_0("t1", "auto_play"))
    table = await play_bots_until_clock(rig, "t1")
    v = table.version
    choice = view(table.game.deal, 0).legal_actions[-1]
    await wait_until_due(svc, table)
    assert await rig.workers.run_turn_clock("t1", v) == "done"

    with pytest.raises(StaleVersion) as refused:
        await svc.execute("t1", "human-late", lambda t: choice, actor=HUMAN, role="player",
                          digest=command_digest(choice), seat=0, expected_version=v)

    assert refused.value.rule == "stale_version"
    assert "human-late" not in commands_of(await stream_rows(svc.pool, "t1"))


# ------------------------------------------------------------------ consequences of a timeout


async def test_timeout_auto_plays_a_pass_or_the_lowest_legal_card(rig):
    svc = await rig.tables()
    # Enough timeouts in a row allowed for the clock to play cards before the table counts as abandoned.
    await svc.open_table(msgspec.structs.replace(human_at_seat_0("t1", "auto_play"), max_timeouts=64))
    await rig.workers.reconcile()
    rig.start()

    async def clock_cards() -> int:
        rows = await stream_rows(svc.pool, "t1")
        return sum(1 for r in rows if r.metadata.get("command_id", "").startswith("clock:")
                   and isinstance(CODEC.decode(r), CardPlayed))

    # Wait on state: drain the queues, then look again, until the clock has played two cards for seat 0.
    deadline = time.monotonic() + 60
    while await clock_cards() < 2:
        assert time.monotonic() < deadline and not ended(await svc.load("t1"))
        await drain_once(rig)
    rig.stop()

    rows = await stream_rows(svc.pool, "t1")
    assert_exactly_once(rows)
    clocked = {cid: vs for cid, vs in commands_of(rows).items() if cid.startswith("clock:")}
    kinds = set()
    for cid, vs in clocked.items():
        before = table_before(svc, rows, vs[0] - 1)
        expected = game_mod.decide(before.game, game_of(before).auto_play(before.game, 0))
        stored = CODEC.decode(rows[vs[0] - 1])
        assert stored == expected[0], f"{cid}: stored {stored}, expected {expected[0]}"
        assert stored.seat == 0
        if isinstance(stored, BidMade):
            assert stored.bid in ("pass", "wala", "confirm")
            kinds.add("pass")
        elif isinstance(stored, DoubleCalled):
            assert stored.call == "pass"
            kinds.add("pass")
        else:
            assert isinstance(stored, CardPlayed)
            kinds.add("card")
    assert "card" in kinds


async def drain_once(rig: InProcess) -> None:
    """One round of draining both queues (bots, then clocks with their delayed messages)."""
    for q in ("bots", "clocks"):
        await asyncio.to_thread(rig.broker.join, q, timeout=30_000, fail_fast=True)
    rig.check()


@pytest.mark.parametrize("level", ["normal", "hard"])
async def test_timeout_hands_the_seat_to_a_bot_that_plays_on(rig, level):
    svc = await rig.tables()
    await svc.open_table(msgspec.structs.replace(human_at_seat_0("t1", "bot", level=level), timeout_bot_level=level))
    await rig.workers.reconcile()
    rig.start()

    table = await rig.drain_until(svc, "t1", ended)

    rows = await stream_rows(svc.pool, "t1")
    commands = assert_exactly_once(rows)
    handed = [(r.version, e) for r in rows if isinstance(e := CODEC.decode(r), SeatHandedToBot)]
    assert len(handed) == 1
    at, event = handed[0]
    assert (event.seat, event.level) == (0, level)
    assert commands_of(rows)[f"clock:{at - 1}"] == [at]
    assert table.bots[0] == level
    later = [CODEC.decode(r) for r in rows[at:] if r.metadata.get("actor") == f"bot:{level}"]
    assert any(getattr(e, "seat", None) == 0 for e in later), "the bot never played seat 0"
    assert not any(cid.startswith("clock:") and cid != f"clock:{at - 1}" for cid in commands)
    await assert_chain_holds(svc.pool, "t1")


async def test_timeout_forfeits_the_game(rig):
    svc = await rig.tables()
    await svc.open_table(human_at_seat_0("t1", "forfeit"))
    await rig.workers.reconcile()
    rig.start()

    table = await rig.drain_until(svc, "t1", ended)

    rows = await stream_rows(svc.pool, "t1")
    assert_exactly_once(rows)
    decoded = [CODEC.decode(r) for r in rows]
    end = next(i for i, e in enumerate(decoded) if isinstance(e, GameEnded))
    last = decoded[end]
    assert (last.reason, last.winner) == ("forfeit", 1)      # seat 0's team (0) lost
    assert rows[end].metadata["command_id"].startswith("clock:")
    # The deal cut short reveals its seed with the game's end, so the log can be audited.
    assert [type(e) for e in decoded[end + 1:]] == [SeedRevealed]
    assert pending_work(table) is None
    status = await svc.pool.fetchval("SELECT status FROM tables_index WHERE table_id = 't1'")
    assert status == "finished"


# ------------------------------------------------------------------ the reconciler


async def test_reconciler_finds_a_table_nobody_enqueued(rig):
    svc = await rig.tables()
    flow, svc.flow = svc.flow, None          # as if the process stopped right after storing the table
    opened = await svc.open_table(all_bots("t1", level="easy"))
    svc.flow = flow
    rig.start()
    await drain_once(rig)
    assert (await svc.load("t1")).version == opened.version    # nothing was enqueued, nothing moved

    assert await rig.workers.reconcile() == 1

    await rig.drain_until(svc, "t1", ended)
    assert_exactly_once(await stream_rows(svc.pool, "t1"))


async def test_reconciler_marks_finished_a_game_whose_writer_died_before_marking_the_index(rig):
    # The index's mark follows the append of the game's end: a worker killed between the two left the table
    # "live" in the index for ever (deploy/chaos found one). The state that leaves, made here: the game played
    # to its end, then the index row as it was before the mark.
    svc = await rig.tables()
    await svc.open_table(all_bots("t1", level="easy"))
    rig.start()
    await rig.drain_until(svc, "t1", ended)
    await svc.pool.execute("UPDATE tables_index SET status = 'live' WHERE table_id = 't1'")
    head = (await svc.load("t1")).version

    assert await rig.workers.reconcile() == 0                # nothing to queue: the game is over

    assert await svc.pool.fetchval("SELECT status FROM tables_index WHERE table_id = 't1'") == "finished"
    assert (await svc.load("t1")).version == head            # and nothing stored


async def test_reconciler_recovers_a_lost_message_mid_game(rig, monkeypatch):
    monkeypatch.setattr(actors, "CHAIN", 1)      # one run of bot turns per message
    svc = await rig.tables()
    table = await svc.open_table(all_bots("t1", level="easy"))
    for _ in range(3):                           # three runs of bot moves; each enqueues the next
        table = await svc.load("t1")
        assert await rig.workers.play_bot_turn("t1", pending_work(table).version) == "done"
    moved = (await svc.load("t1")).version
    assert rig.queued("bots") >= 1
    rig.flush()                                  # the broker loses the messages
    rig.start()
    await drain_once(rig)
    assert (await svc.load("t1")).version == moved     # nothing moves after the loss

    assert await rig.workers.reconcile() == 1

    await rig.drain_until(svc, "t1", ended)
    assert_exactly_once(await stream_rows(svc.pool, "t1"))


async def test_while_bot_turns_wait_in_their_queue_the_reconciler_leaves_their_tables_alone(rig):
    # A big round's 4,000 tables: a table's turn waits in the queue longer than a reconciler's period, and
    # queueing it again each pass would have every turn played (and read) twice over.
    svc = await rig.tables()
    await svc.open_table(all_bots("t1", level="easy"))
    assert rig.queued("bots") == 1                       # its turn waits (no worker consumes yet)
    assert await rig.workers.reconcile(quiet=1e-6) == 0  # quiet for a moment only: not looked at
    rig.flush()                                          # the turn lost, the queue empty
    assert await rig.workers.reconcile(quiet=1e-6) == 1  # now it is
    assert rig.queued("bots") == 1
    rig.start()
    await rig.drain_until(svc, "t1", ended)
    assert_exactly_once(await stream_rows(svc.pool, "t1"))


async def test_a_table_nobody_plays_ends_after_its_limit_of_timeouts(rig):
    """Four empty seats on auto-play would pass void deal after void deal for ever without the abandon rule."""
    svc = await rig.tables()
    opened = msgspec.structs.replace(human_at_seat_0("t1", "auto_play"), seats=(HUMAN,) * 4, bots=(None,) * 4,
                                     max_timeouts=6)
    await svc.open_table(opened)
    await rig.workers.reconcile()
    rig.start()

    table = await rig.drain_until(svc, "t1", ended)

    rows = await stream_rows(svc.pool, "t1")
    assert_exactly_once(rows)
    clock_commands = {r.metadata["command_id"] for r in rows if r.metadata.get("role") == "clock"}
    assert len(clock_commands) == 6                          # the limit, not one more
    end = next(CODEC.decode(r) for r in rows if r.event_type == "game_ended")
    assert (end.reason, end.winner) == ("abandoned", None)  # both teams' seats timed out: nobody wins
    assert table.game.phase == "ended" and pending_work(table) is None
    await assert_chain_holds(svc.pool, "t1")


async def test_a_run_of_bot_turns_keeps_each_event_and_spectators_stay_behind_by_the_delay(rig):
    """A run is stored as one append, but each bid and card stays its own event with its own command, and a
    spectator of a delayed table sees none of it until the delay has passed."""
    svc = await rig.tables()
    opened = msgspec.structs.replace(all_bots("t1"), delay_seconds=600.0)
    table = await svc.open_table(opened)
    opening = table.version
    assert await rig.workers.play_bot_turn("t1", opening) == "done"
    table = await svc.load("t1")
    rows = await stream_rows(svc.pool, "t1")
    # The appends after the opening, the run with most turns: a run stops where something follows by itself
    # (a bid that buys at once deals the rest of the pack), and the deal's tricks are one run.
    appends: dict = {}
    for r in rows[opening:]:
        appends.setdefault(r.tx_id, []).append(r)
    run = max(appends.values(), key=lambda rs: len(commands_of(rs)))
    assert len(run) > 4                                                # one append of many events
    commands = commands_of(run)
    assert len(commands) > 4 and all(c.startswith("bot:") for c in commands)
    for cid, versions in commands.items():                       # each bot turn: its own command, and it
        first = CODEC.decode(run[versions[0] - run[0].version])   # begins with that seat's own action
        assert hasattr(first, "seat")
        assert run[versions[0] - run[0].version].metadata["seat"] == first.seat
    assert_exactly_once(rows)
    access = (await rig.runtime.platform()).access
    assert await access.version(table, Sight(seat=None, live=True)) == table.version
    assert await access.version(table, Sight(seat=None, live=False, delay=600.0)) == 0     # stored less than 600 s ago
