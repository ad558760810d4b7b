"""A table's bot pace (``TableOpened.bot_pace``), on real PostgreSQL and the in-process broker: each bot turn
is its own append, due its pace after the table's last stored event; a message that comes before it is due
is sent again with the delay left, not played; the reconciler queues paced work for when it is due; a
person's action is never held back, and the bot after him waits the pace. The worker never sleeps: what
waits is a delayed message."""

from __future__ import annotations

import datetime as dt
import itertools

import dramatiq
import msgspec

from domain.baloot.events import DealVoided, GameEnded, SeedRevealed
from domain.baloot.views import view
from domain.table import game_of
from services.platform import Platform
from services.tables import CODEC, command_digest
from services.tables.pending import pending_work
from tests.workers.helpers import (
    HUMAN, all_bots, assert_chain_holds, assert_exactly_once, ended, human_at_seat_0, stream_rows,
)


def paced(table_id: str, pace: float, **options):
    """An all-bot table whose bots act ``pace`` seconds apart."""
    return msgspec.structs.replace(all_bots(table_id), bot_pace=pace, **options)


def queued_messages(rig, queue: str) -> list[dramatiq.Message]:
    """The messages waiting on ``queue`` of the in-process broker, read without taking them."""
    return [dramatiq.Message.decode(m) for m in list(rig.broker.queues[queue].queue)]


def epoch_ms(t: dt.datetime) -> int:
    return int(t.timestamp() * 1000)


def appends(rows) -> list[list]:
    """The stream's rows by append (one transaction each), in order."""
    return [list(group) for _, group in itertools.groupby(rows, key=lambda r: r.tx_id)]


async def test_a_paced_table_stores_each_bot_action_alone_at_least_its_pace_apart_to_the_end_of_a_deal(rig):
    pace = 0.2
    svc = await rig.tables()
    await svc.open_table(paced("t1", pace, deals=1))          # one deal, then the game ends
    rig.start()

    await rig.drain_until(svc, "t1", ended)

    rows = await stream_rows(svc.pool, "t1")
    assert_exactly_once(rows)
    await assert_chain_holds(svc.pool, "t1")
    events = [CODEC.decode(r) for r in rows]
    assert any(isinstance(e, SeedRevealed) for e in events) and isinstance(events[-1], GameEnded)
    opening, *played = appends(rows)
    assert all(r.metadata["role"] == "system" for r in opening)
    # Every append after the opening is one bot action (its command's events, and what followed by itself).
    # A deal is at least two rounds of bids, unless a bot's first bid is Kawesh (its deal void at once: the
    # deal depends on the tests' per-process secret, and some deals have one).
    kawesh = any(isinstance(e, DealVoided) and e.reason == "kawesh" for e in events)
    assert len(played) >= (1 if kawesh else 8)
    for batch in played:
        assert {r.metadata["role"] for r in batch} == {"bot"}
        assert len({r.metadata["command_id"] for r in batch}) == 1, [r.metadata for r in batch]
    # Each one stored at least the pace after the one before.
    gaps = [(after[0].recorded_at - before[-1].recorded_at).total_seconds()
            for before, after in zip([opening, *played], played)]
    assert min(gaps) >= pace, gaps


async def test_a_paced_bot_turn_delivered_before_it_is_due_is_sent_again_with_the_delay_left(rig):
    svc = await rig.tables()
    table = await svc.open_table(paced("t1", 5.0))
    work = pending_work(table)
    assert work.kind == "bot" and work.due == table.last_at + dt.timedelta(seconds=5.0)
    stored = await stream_rows(svc.pool, "t1")
    waiting = queued_messages(rig, "bots.DQ")
    assert rig.broker.queues["bots"].qsize() == 0              # the opening's own message waits too

    assert await rig.workers.play_bot_turn("t1", work.version) == "early"

    assert len(await stream_rows(svc.pool, "t1")) == len(stored)          # nothing played
    assert (await svc.load("t1")).version == table.version
    assert rig.broker.queues["bots"].qsize() == 0                         # not sent to be played at once
    again = queued_messages(rig, "bots.DQ")
    assert len(again) == len(waiting) + 1
    message = again[-1]
    assert message.actor_name == "bot_turn" and tuple(message.args) == ("t1", work.version)
    assert epoch_ms(work.due) - 1 <= message.options["eta"] <= epoch_ms(work.due) + 1000


async def test_the_reconciler_queues_a_paced_bot_turn_for_when_it_is_due(rig, pool):
    plain = (await Platform.on(pool)).tables                   # no workers attached: the opening queues nothing
    table = await plain.open_table(paced("t1", 3.0))
    work = pending_work(table)
    assert rig.queued("bots") == 0

    assert await rig.workers.reconcile() == 1

    assert rig.broker.queues["bots"].qsize() == 0              # not to be played at once
    (message,) = queued_messages(rig, "bots.DQ")
    assert tuple(message.args) == ("t1", table.version) and work.due is not None
    assert epoch_ms(work.due) - 1 <= message.options["eta"] <= epoch_ms(work.due) + 1000


async def test_an_unpaced_table_plays_its_run_of_bot_turns_in_one_append_at_once(rig):
    svc = await rig.tables()
    table = await svc.open_table(all_bots("t1"))
    work = pending_work(table)
    assert work.kind == "bot" and work.due is None
    (message,) = queued_messages(rig, "bots")                  # sent to be played at once, no delay
    assert "eta" not in message.options and rig.broker.queues["bots.DQ"].qsize() == 0

    assert await rig.workers.play_bot_turn("t1", work.version) == "done"

    first_run = appends([r for r in await stream_rows(svc.pool, "t1") if r.version > table.version])[0]
    assert len({r.metadata["command_id"] for r in first_run}) > 1


async def test_a_person_at_a_paced_table_acts_at_once_and_the_next_bot_waits_its_pace_after_him(rig):
    svc = await rig.tables()
    pace, turn = dt.timedelta(seconds=5.0), dt.timedelta(seconds=30)
    await svc.open_table(msgspec.structs.replace(human_at_seat_0("t1", "auto_play", turn_seconds=30), bot_pace=5.0))
    table = await svc.load("t1")
    after_him = 0
    for _ in range(200):
        work = pending_work(table)
        if work.kind == "bot":                  # played here, not waited for: the pace is the workers' to keep
            assert work.due == table.last_at + pace
            _, table = await svc.play_bots("t1", table.version, game_of(table).choose_from, table)
            continue
        assert work.kind == "clock" and work.seat == 0 and work.due == table.last_at + turn   # his clock, no pace
        choice = view(table.game.deal, 0).legal_actions[0]
        before = table.version
        outcome, table = await svc.execute("t1", f"human-{before}", lambda t: choice, actor=HUMAN, role="player",
                                           digest=command_digest(choice), seat=0, expected_version=before)
        assert not outcome.replayed and outcome.version > before                # his action is stored at once
        work = pending_work(table)
        if work.kind == "bot":
            assert work.due == table.last_at + pace                             # the next bot: the pace after him
            after_him += 1
            if after_him == 3:
                return
    raise AssertionError(f"a bot followed the person {after_him} times only")
