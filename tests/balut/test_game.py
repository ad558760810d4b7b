"""The Balut decider: turns, throws, rows, the throwing order, seeds; each refusal with its exact words."""

import hashlib

from domain.balut.dice import faces_from_seed, seed_commitment
from domain.balut.events import (
    BalutEnded, CategoryScored, DiceDrawn, DiceRolled, Roll, Score, StartBalut, StartTurn, TurnSeedRevealed,
    TurnStarted,
)
from domain.balut.game import INITIAL, follow_ups, legal_actions, needs, fold, step
from domain.balut.profiles import IBF
from domain.events import RevealSeed

from tests.balut.given import faces, given_game, then_refused, turn, when


def test_balut_takes_one_to_eight_players():
    then_refused(INITIAL, StartBalut(players=9), "bad_players", "Balut is played by 1 to 8 players, not 9")
    then_refused(INITIAL, StartBalut(players=0), "bad_players")
    then_refused(INITIAL, StartBalut(players=3, first_player=3), "bad_seat",
                 "seat 3 does not exist (seats are 0-2)")
    then_refused(given_game(), StartBalut(players=2), "game_started")


def test_the_first_throw_is_of_all_five_dice():
    state = when(given_game(), StartTurn(faces=faces("12345")))
    assert legal_actions(state, 0) == [Roll(0)]
    then_refused(state, Roll(0, (1,)), "first_throw_all_dice", "the first throw of a turn is of all five dice")
    then_refused(state, Score(0, "choice"), "throw_first", "seat 0 must throw before writing a row")


def test_three_throws_at_most_then_a_row_must_be_written():
    state = when(given_game(), StartTurn(faces=faces("12345")), Roll(0), Roll(0, (0,)), Roll(0, (0, 1)))
    then_refused(state, Roll(0, (0,)), "no_throws_left", "seat 0 has thrown three times and must write a row")
    assert all(type(a) is Score for a in legal_actions(state, 0)) and len(legal_actions(state, 0)) == 7


def test_keeping_all_five_is_no_throw_and_positions_must_be_distinct():
    state = when(given_game(), StartTurn(faces=faces("12345")), Roll(0))
    then_refused(state, Roll(0, (0, 1, 2, 3, 4)), "nothing_to_throw",
                 "keeping all five dice leaves nothing to throw: write a row")
    then_refused(state, Roll(0, (1, 1)), "bad_keep", "dice to keep are named by distinct positions 0-4, not [1, 1]")
    then_refused(state, Roll(0, (5,)), "bad_keep")
    # After a throw: 31 ways to keep fewer than five dice, and the 7 open rows.
    assert len(legal_actions(state, 0)) == 31 + 7


def test_only_the_seat_whose_turn_it_is_acts():
    state = when(given_game(players=2), StartTurn(faces=faces("12345")))
    then_refused(state, Roll(1), "not_your_turn", "it is seat 0's turn to throw, not seat 1's")
    assert legal_actions(state, 1) == []


def test_a_written_row_is_final_and_a_row_is_written_once_at_stc():
    state = turn(given_game(), "44412", category="fours")
    assert state.sheets[0][0] == (12,)
    state = when(state, StartTurn(faces=faces("44444")), Roll(0))
    then_refused(state, Score(0, "fours"), "row_full", "seat 0's fours row is full: each row is written once")
    then_refused(state, Score(0, "twos"), "bad_category")


def test_the_best_score_of_a_round_throws_first_in_the_next():
    state = given_game(players=3, first_player=1)
    state = turn(state, "12345", category="fours")     # seat 1: 4
    state = turn(state, "66612", category="sixes")     # seat 2: 18
    state = turn(state, "55512", category="fives")     # seat 0: 15
    assert state.round == 1 and state.order == (1, 2, 0)
    state = when(state, StartTurn(faces=faces("12345")))
    assert (state.round, state.order, state.turn) == (2, (2, 0, 1), 2)


def test_equal_best_scores_the_earlier_thrower_starts_the_next_round():
    state = given_game(players=3, first_player=0)
    state = turn(state, "12345", category="fives")      # seat 0: 5
    state = turn(state, "66612", category="sixes")     # seat 1: 18
    state = turn(state, "66612", category="sixes")     # seat 2: 18, equal to seat 1, who threw earlier
    assert when(state, StartTurn(faces=faces("12345"))).turn == 1


def test_ibf_keeps_the_same_order_every_round():
    state = given_game(players=2, profile=IBF, first_player=1)
    state = turn(state, "12345", category="fours")      # seat 1: 4
    state = turn(state, "66666", category="sixes")     # seat 0: 30
    assert when(state, StartTurn(faces=faces("12345"))).turn == 1


def test_a_seeded_turn_publishes_a_commitment_and_keeps_its_faces_private():
    state, events = step(given_game(), StartTurn(seed="turn-seed"))
    started, drawn = events
    assert started == TurnStarted(seat=0, round=1, commitment=seed_commitment("turn-seed"))
    assert type(drawn) is DiceDrawn and drawn.private and not TurnStarted.private
    assert started.commitment == hashlib.sha256(b"balut-seed/1:turn-seed").hexdigest()
    state, (rolled,) = step(state, Roll(0))
    assert rolled == DiceRolled(seat=0, throw=1, keep=(), dice=faces_from_seed("turn-seed")[:5])


def test_the_seed_is_revealed_after_the_row_and_before_the_next_turn():
    state = when(given_game(), StartTurn(seed="s0"), Roll(0))
    then_refused(state, RevealSeed("s0"), "seed_too_early", "a turn's seed is revealed only once its row is written")
    state = when(state, Score(0, "choice"))
    assert needs(state) == "reveal_seed"
    then_refused(state, StartTurn(seed="s1"), "seed_unrevealed",
                 "the last turn's seed must be revealed before the next turn")
    then_refused(state, RevealSeed("another"), "seed_mismatch")
    state, events = step(state, RevealSeed("s0"))
    assert events == [TurnSeedRevealed("s0")] and needs(state) == "start_turn"
    then_refused(state, RevealSeed("s0"), "seed_not_committed")


def test_a_turn_needs_exactly_one_of_a_seed_or_faces():
    then_refused(given_game(), StartTurn(), "bad_dice", "give exactly one of a seed or the turn's faces")
    then_refused(given_game(), StartTurn(seed="x", faces=faces("12345")), "bad_dice")
    then_refused(given_game(), StartTurn(faces=(1, 2, 3)), "bad_dice",
                 "a turn has 15 faces (five dice, three throws), each 1-6")
    then_refused(given_game(), StartTurn(faces=(7,) * 15), "bad_dice")


def test_no_new_turn_while_one_is_running_and_none_after_the_end():
    state = when(given_game(), StartTurn(faces=faces("12345")))
    then_refused(state, StartTurn(faces=faces("12345")), "turn_in_progress", "seat 0 has not written a row yet")
    for category in ("fours", "fives", "sixes", "straight", "house", "choice", "balut"):
        state = turn(given_game() if category == "fours" else state, "12345", category=category)
    assert state.phase == "ended"
    then_refused(state, StartTurn(faces=faces("12345")), "game_not_playing", "the game is ended")


def test_the_last_row_ends_the_game_with_the_result_in_the_same_decision():
    state = given_game()
    for category in ("fours", "fives", "sixes", "straight", "house", "choice"):
        state = turn(state, "12345", category=category)
    state = when(state, StartTurn(faces=faces("22222")), Roll(0))
    state, events = step(state, Score(0, "balut"))
    scored, ended = events
    assert scored == CategoryScored(seat=0, category="balut", dice=(2, 2, 2, 2, 2), points=30)
    # 4 + 5 + 0 + 15 + 0 + 15 + 30 = 69
    assert type(ended) is BalutEnded and ended.result.totals == (69,) and state.phase == "ended"


def test_follow_ups_reveal_the_seed_and_start_the_next_turn():
    seeds = [f"seed-{n}" for n in range(20)]     # turn n is thrown from seeds[n], from 1
    state, events = step(INITIAL, StartBalut(players=2))
    events = follow_ups(INITIAL, events, seeds.__getitem__)
    state = fold(events)
    assert state.turn == 0 and state.commitment == seed_commitment("seed-1")
    state2, new = step(state, Roll(0))
    more = follow_ups(state2, step(state2, Score(0, "choice"))[1], seeds.__getitem__)
    assert [type(e) for e in more] == [CategoryScored, TurnSeedRevealed, TurnStarted, DiceDrawn]
    assert more[1] == TurnSeedRevealed("seed-1") and more[2].commitment == seed_commitment("seed-2")


def test_the_view_tells_the_thrower_what_each_open_row_would_score():
    from domain.balut.views import view

    state = when(given_game(players=2), StartTurn(faces=faces("44412")))
    assert view(state, 0).would_score == {}                                # nothing thrown yet
    state = when(state, Roll(0))
    expected = {"fours": 12, "fives": 0, "sixes": 0, "straight": 0, "house": 0, "choice": 15, "balut": 0}
    assert view(state, 0).would_score == expected == view(state, 1).would_score   # the dice are on the table
    state = when(state, Score(0, "fours"), StartTurn(faces=faces("23456")), Roll(1))
    assert view(state, 0).would_score["straight"] == 20 and "fours" in view(state, 0).would_score  # seat 1's rows
    state = when(state, Score(1, "fours"), StartTurn(faces=faces("44444")), Roll(0))
    assert "fours" not in view(state, 0).would_score                      # seat 0 wrote it: no longer open
