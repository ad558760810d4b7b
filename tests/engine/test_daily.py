"""Boards, board sets and scoring against the field (domain/baloot/daily.py): worked examples and properties."""

import hashlib
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.baloot import daily
from domain.baloot.shuffle import deck_from_seed

fields = st.lists(st.integers(min_value=-120, max_value=120), min_size=1, max_size=40)


# ---------------------------------------------------------------- boards and sets

def test_board_seeds_follow_the_documented_derivation():
    assert daily.board_seed("abc", 1) == hashlib.sha256(b"baloot-board/1:abc:1").hexdigest()[:32]
    b = daily.board("day", "abc", 3)
    assert b.seed == hashlib.sha256(b"baloot-board/1:abc:3").hexdigest()[:32]
    assert b.deck == deck_from_seed(b.seed)
    assert [x.dealer for x in daily.boards("day", "abc", 6)] == [0, 1, 2, 3, 0, 1]


def test_the_same_set_seed_gives_the_same_boards_and_boards_differ():
    one, two = daily.boards("d", "seed-1", 8), daily.boards("d", "seed-1", 8)
    assert one == two
    assert len({b.deck for b in one}) == 8
    assert daily.boards("d", "seed-2", 1)[0].deck != one[0].deck


def test_a_set_publishes_its_commitment_and_checks_its_seed_at_the_close():
    opened = daily.open_set("2026-12-01/saudi", "s3cret", 8)
    assert opened.seed is None and not opened.closed
    assert opened.commitment == hashlib.sha256(b"baloot-seed/1:s3cret").hexdigest()
    with pytest.raises(ValueError):
        daily.close_set(opened, "guess")
    closed = daily.close_set(opened, "s3cret")
    assert closed.closed and closed.seed == "s3cret"
    deck = daily.board(opened.set_id, "s3cret", 2).deck
    assert daily.check_board(opened, "s3cret", 2, deck)
    assert not daily.check_board(opened, "s3cret", 3, deck)
    assert not daily.check_board(opened, "other", 2, deck)


def test_bad_sets_and_boards_are_refused():
    with pytest.raises(ValueError):
        daily.open_set("x", "s", 0)
    with pytest.raises(ValueError):
        daily.board("x", "s", 0)


# ---------------------------------------------------------------- worked examples (by hand)

def test_matchpoints_worked_example():
    # Field +10, 0, 0, -16: +10 beats three (3), each 0 beats -16 and ties the other 0 (1.5), -16 nothing.
    assert daily.matchpoints([10, 0, 0, -16]) == [3, 1.5, 1.5, 0]
    assert [daily.mp_share(p, 4) for p in (3, 1.5, 0)] == [10_000, 5_000, 0]
    assert daily.mp_share(1, 4) == 3_333              # a third, rounded down
    assert daily.mp_share(0, 1) == 5_000              # alone on a board: half


def test_imps_worked_example():
    assert [daily.imps(d) for d in (0, 1, 2, 4, 5, 8, 9, 16, 26, 52, 99, 100, 400)] == \
        [0, 0, 1, 1, 2, 2, 3, 4, 6, 9, 11, 12, 12]
    assert daily.imps(-26) == -6
    # Field +10, 0, 0, -16: mean -1.5, the datum rounds halves up to -1; differences 11, 1, 1, -15.
    assert daily.datum([10, 0, 0, -16]) == -1
    assert daily.field_imps([10, 0, 0, -16]) == [3, 0, 0, -4]
    assert daily.datum([3, 4]) == 4 and daily.datum([-3, -4]) == -3


def test_margin_is_from_the_seat_s_team():
    assert daily.margin((26, 0), 0) == 26 and daily.margin((26, 0), 2) == 26
    assert daily.margin((26, 0), 1) == -26


def test_a_day_worked_example_and_its_tie_breaks():
    # Board 1: a +16, b 0, c 0. Board 2: a -10, b +10, c -10.
    day = {1: {"a": 16, "b": 0, "c": 0}, 2: {"a": -10, "b": 10, "c": -10}}
    table = daily.score_day(day, {"a": 30, "b": 20, "c": 10})
    by = {s.entry: s for s in table}
    # a: board 1 beats 2 (100%), board 2 ties c (25%): 12,500; b: 25% + 100%; c: 25% + 25%.
    assert (by["a"].mp, by["b"].mp, by["c"].mp) == (12_500, 12_500, 5_000)
    # IMPs: board 1 datum 5 (a +11 -> 3, b and c -5 -> -2); board 2 datum -3 (a, c -7 -> -2; b +13 -> 4).
    assert (by["a"].imps, by["b"].imps, by["c"].imps) == (1, 2, -4)
    # a and b tie on matchpoints; b has more IMPs.
    assert [s.entry for s in table] == ["b", "a", "c"]
    assert [s.entry for s in daily.rank(table, "imps")] == ["b", "a", "c"]


def test_ties_fall_to_boards_then_the_earlier_finish_then_the_entry():
    s = [daily.Standing("z", 100, 1, 2, 5), daily.Standing("y", 100, 1, 2, 7), daily.Standing("x", 100, 1, 1, 1),
         daily.Standing("w", 100, 1, 2, 5)]
    assert [x.entry for x in daily.rank(s)] == ["w", "z", "y", "x"]
    with pytest.raises(ValueError):
        daily.rank(s, "total")


# ---------------------------------------------------------------- properties

@given(fields)
def test_a_field_shares_n_times_n_minus_one_over_two_matchpoints(field):
    n = len(field)
    assert sum(daily.matchpoints(field)) == n * (n - 1) / 2


@given(fields)
def test_matchpoints_follow_the_results(field):
    mps = daily.matchpoints(field)
    for i in range(len(field)):
        for j in range(len(field)):
            if field[i] > field[j]:
                assert mps[i] > mps[j]
            elif field[i] == field[j]:
                assert mps[i] == mps[j]
    assert all(0 <= daily.mp_share(p, len(field)) <= daily.MP_UNIT for p in mps)


@given(fields, st.integers(min_value=-50, max_value=50), st.randoms())
def test_scores_do_not_depend_on_the_order_or_a_common_shift(field, shift, rnd):
    order = list(range(len(field)))
    rnd.shuffle(order)
    mps = daily.matchpoints(field)
    assert daily.matchpoints([field[i] for i in order]) == [mps[i] for i in order]
    assert daily.matchpoints([r + shift for r in field]) == mps
    assert daily.field_imps([r + shift for r in field]) == daily.field_imps(field)


@given(st.integers(min_value=-500, max_value=500), st.integers(min_value=-500, max_value=500))
def test_imps_are_antisymmetric_monotone_and_bounded(a, b):
    assert daily.imps(-a) == -daily.imps(a)
    if a <= b:
        assert daily.imps(a) <= daily.imps(b)
    assert abs(daily.imps(a)) <= len(daily.IMP_SCALE)


@given(st.dictionaries(st.integers(1, 4), st.dictionaries(st.sampled_from("abcdefgh"), st.integers(-60, 60),
                                                             min_size=1), min_size=1))
def test_a_day_is_the_sum_of_its_boards_and_ranks_totally(day):
    table = daily.score_day(day, {})
    for s in table:
        boards = [daily.score_board(results)[s.entry] for results in day.values() if s.entry in results]
        assert s.mp == sum(b.mp_share for b in boards)
        assert s.imps == sum(b.imps for b in boards)
        assert s.boards == len(boards)
    shuffled = list(table)
    random.Random(7).shuffle(shuffled)
    assert daily.rank(shuffled) == table


def test_the_cli_prints_a_set_s_commitment_and_boards_and_simulates_a_day(capsys):
    from services.cli import main

    assert main(["daily", "boards", "--seed", "abc", "--boards", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "commitment " + hashlib.sha256(b"baloot-seed/1:abc").hexdigest()
    assert out[2].startswith("board 2: dealer seat 1, seed " + hashlib.sha256(b"baloot-board/1:abc:2").hexdigest()[:32])
    assert main(["daily", "simulate", "--players", "3", "--boards", "2", "--seed", "s"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert len(rows) == 3 and rows[0].split()[0] == "1"


def test_a_table_of_one_deal_reveals_its_seed_and_ends_after_it():
    from domain.baloot import game as game_mod
    from domain.baloot.bots import bot
    from domain.baloot.events import DealNext, DealStarted, GameEnded, RecordResult, SeedRevealed, StartGame
    from domain.baloot.views import view

    game, _ = game_mod.step(game_mod.INITIAL, StartGame(first_dealer=0))
    game, _ = game_mod.step(game, DealNext(seed="board-1"))
    stored = []
    while game.phase == "playing":
        deal = game.deal
        cmd = RecordResult() if deal.phase == "review" else bot("normal").choose(view(deal, deal.turn))
        events = game_mod.decide(game, cmd)
        for e in events:
            game = game_mod.evolve(game, e)
        more = game_mod.follow_on(game, lambda n: f"board-{n}", deals=1)
        for e in more:
            game = game_mod.evolve(game, e)
        events += more
        stored.extend(events)
    assert not any(isinstance(e, DealStarted) for e in stored)          # no second deal
    assert [type(e) for e in stored[-2:]] == [SeedRevealed, GameEnded]
    end = stored[-1]
    a, b = game.results[0]
    assert end.reason == "deals" and end.scores == (a, b)
    assert end.winner == (None if a == b else 0 if a > b else 1)
