"""A run of bot turns decided at once (``domain.table.bot_run``): each bot is given exactly its seat's view
at its turn, the run is what the bots would have played one command at a time, and it stops at a person's
turn or once the deal ended (seed revealed, next deal dealt); at a paced table a run is one turn."""

from __future__ import annotations

import hashlib

from domain import table as table_rules
from domain.baloot.bots import bot
from domain.baloot.events import DealStarted, GameEnded, SeedRevealed
from domain.baloot.profiles import SAUDI
from domain.table import TableOpened, TableState, bot_run, decide_followed
from domain.baloot.views import view
from domain.baloot.events import DealNext, StartGame


def seed_of(n: int) -> str:
    return hashlib.sha256(f"test-run/{n}".encode()).hexdigest()[:32]


def opened_table(bots, bot_pace: float = 0.0) -> TableState:
    opened = TableOpened(table_id="run", seats=("a", "b", "c", "d"), profile=SAUDI, bots=bots, bot_pace=bot_pace)
    table = table_rules.evolve(TableState(), opened)
    for command in (StartGame(first_dealer=0, profile=SAUDI), DealNext(seed=seed_of(1))):
        for e in table_rules.decide(table, command):
            table = table_rules.evolve(table, e)
    return table


def recording(given: list):
    def choose(level, seat_view):
        given.append(seat_view)
        return bot(level).choose(seat_view)
    return choose


def test_each_bot_gets_its_seats_view_and_the_run_equals_turns_one_by_one():
    table = opened_table(("normal",) * 4)
    given: list = []
    turns, after = bot_run(table, recording(given), seed_of)
    assert turns
    one_by_one = table
    for turn, seen in zip(turns, given, strict=True):
        seat = one_by_one.game.deal.turn
        assert turn.seat == seat
        assert seen == view(one_by_one.game.deal, seat)        # the seat's own view, nothing more
        assert seen.hands is None and seen.viewer == seat
        assert turn.command == bot("normal").choose(seen)
        decided, more, one_by_one = decide_followed(one_by_one, turn.command, seed_of)
        assert decided + more == turn.events
    assert after == one_by_one
    last = turns[-1].events
    assert any(isinstance(e, SeedRevealed) for e in last)     # the run ended with the deal
    assert any(isinstance(e, (DealStarted, GameEnded)) for e in last)
    assert not any(isinstance(e, SeedRevealed) for t in turns[:-1] for e in t.events)


def test_the_run_stops_at_a_persons_turn():
    bots = ("normal", "normal", None, "normal")
    table = opened_table(bots)
    while table.game.deal.turn != 2:           # play until the person's seat is to act next
        turns, table = bot_run(table, recording([]), seed_of)
        if not turns:
            break
        assert all(t.seat != 2 for t in turns)
    assert table.game.deal.turn == 2
    assert bot_run(table, recording([]), seed_of) == ([], table)


def test_a_whole_all_bot_game_is_runs_of_whole_deals():
    table = opened_table(("easy",) * 4)
    runs = 0
    while table.game.phase == "playing":
        turns, table = bot_run(table, recording([]), seed_of)
        assert turns, "a bot table never waits"
        runs += 1
    assert runs == table.game.deal_no


def test_a_paced_tables_run_is_one_turn_the_same_as_the_first_of_an_unpaced_run():
    unpaced, _ = bot_run(opened_table(("normal",) * 4), recording([]), seed_of)
    table = opened_table(("normal",) * 4, bot_pace=0.5)
    turns, after = bot_run(table, recording([]), seed_of)
    assert len(unpaced) > 1 and len(turns) == 1
    assert (turns[0].seat, turns[0].command, turns[0].events) == (unpaced[0].seat, unpaced[0].command,
                                                                  unpaced[0].events)
    assert after.game.deal.turn != table.game.deal.turn
