"""Balut tables in the same workers as the card game (real PostgreSQL, the in-process broker): bot seats of
both levels play a whole game through the bot actor, exactly once per turn; a human seat's turn clock
plays the turn for him (the first throw, then a row) or hands his seat to a bot."""

from __future__ import annotations

import msgspec

from domain.balut.events import CategoryScored, DiceRolled
from domain.balut.profiles import IBF
from services.tables import CODEC, SeatHandedToBot, TableOpened
from services.tables.pending import pending_work
from tests.workers.helpers import (
    BOT, HUMAN, assert_chain_holds, assert_exactly_once, ended, stream_rows,
)
from tests.workers.test_exactly_once import play_bots_until_clock, wait_until_due


def balut_table(table_id: str, seats: tuple[str, ...], bots: tuple[str | None, ...], **options) -> TableOpened:
    return TableOpened(table_id=table_id, seats=seats, bots=bots, game="balut", **options)


async def test_bot_seats_of_both_levels_play_a_whole_balut_game_exactly_once(rig):
    svc = await rig.tables()
    await svc.open_table(balut_table("b1", (BOT,) * 3, ("strong", "simple", "strong")))
    rig.start()
    table = await rig.drain_until(svc, "b1", ended)

    rows = await stream_rows(svc.pool, "b1")
    commands = assert_exactly_once(rows)
    events = [CODEC.decode(r) for r in rows]
    scored = [e for e in events if isinstance(e, CategoryScored)]
    assert len(scored) == 3 * 7                              # three sheets of seven rows, each written once
    assert sorted((e.seat, e.category) for e in scored) == sorted(
        (seat, row) for seat in range(3) for row in ("fours", "fives", "sixes", "straight", "house", "choice",
                                                     "balut"))
    # Every action was a bot's: one per command id bot:<version>.
    acted = [e for e in events if isinstance(e, (DiceRolled, CategoryScored))]
    assert len([c for c in commands if c.startswith("bot:")]) == len(acted)
    assert table.game.result.totals == tuple(sum(e.points for e in scored if e.seat == s) for s in range(3))
    await assert_chain_holds(svc.pool, "b1")


async def test_a_balut_table_keeps_its_profile(rig):
    svc = await rig.tables()
    opened = balut_table("b2", (BOT,) * 2, ("simple", "simple"), game_profile=msgspec.to_builtins(IBF))
    table = await svc.open_table(opened)
    assert table.game.profile == IBF and table.game.players == 2
    index = await svc.pool.fetchrow("SELECT profile, seats FROM tables_index WHERE table_id = 'b2'")
    assert (index["profile"], list(index["seats"])) == ("ibf", [BOT, BOT])


async def test_a_balut_turn_clock_throws_then_writes_a_row_for_the_absent_player(rig):
    svc = await rig.tables()
    await svc.open_table(balut_table("b3", (HUMAN, BOT, BOT), (None, "simple", "simple"), turn_seconds=0.05))
    for expected in (DiceRolled, CategoryScored):
        table = await play_bots_until_clock(rig, "b3")
        assert pending_work(table).seat == 0
        await wait_until_due(svc, table)
        assert await rig.workers.run_turn_clock("b3", table.version) == "done"
        rows = await stream_rows(svc.pool, "b3")
        first = rows[table.version]                         # the clock's first event
        assert first.metadata["role"] == "clock" and first.metadata["command_id"] == f"clock:{table.version}"
        event = CODEC.decode(first)
        assert isinstance(event, expected) and event.seat == 0
    assert event.category in ("fours", "fives", "sixes", "straight", "house", "choice", "balut")
    assert_exactly_once(await stream_rows(svc.pool, "b3"))


async def test_a_balut_turn_clock_hands_the_seat_to_a_bot_that_plays_on(rig):
    svc = await rig.tables()
    await svc.open_table(balut_table("b4", (HUMAN, BOT), (None, "simple"), turn_seconds=0.05, on_timeout="bot",
                                     timeout_bot_level="strong"))
    table = await play_bots_until_clock(rig, "b4")
    await wait_until_due(svc, table)
    assert await rig.workers.run_turn_clock("b4", table.version) == "done"
    handed = CODEC.decode((await stream_rows(svc.pool, "b4"))[table.version])
    assert handed == SeatHandedToBot(seat=0, level="strong", reason="the turn clock ran out")
    rig.start()
    table = await rig.drain_until(svc, "b4", ended)
    assert table.bots == ("strong", "simple") and table.game.phase == "ended"
