"""One test per scoring rule (docs/balut.md §2, §5): dice thrown through the decider, the sheet written by
hand in the test."""

import pytest

from domain.balut.events import Roll, Score, StartTurn
from domain.balut.profiles import IBF, STC
from domain.balut.scoring import final_points, row_points, total_band_points

from tests.balut.given import faces, given_game, row, then_refused, turn, when


def score(dice: str, category: str, profile=STC) -> int:
    return row(turn(given_game(profile=profile), dice, category=category), 0, category)[0]


def test_fours_count_only_the_fours():
    assert score("44124", "fours") == 12           # 4 + 4 + 4; the 1 and the 2 count nothing
    assert score("44444", "fours") == 20           # the most the row can hold


def test_fives_count_only_the_fives():
    assert score("55315", "fives") == 15


def test_sixes_count_only_the_sixes_and_none_is_a_scratch():
    assert score("61623", "sixes") == 12
    assert score("12345", "sixes") == 0


def test_low_straight_scores_15_and_high_straight_20_in_any_order():
    assert score("31524", "straight") == 15        # 1+2+3+4+5
    assert score("65243", "straight") == 20        # 2+3+4+5+6


def test_a_broken_straight_scores_nothing():
    assert score("12346", "straight") == 0         # 1-2-3-4-6 is no line
    assert score("13456", "straight") == 0


def test_house_is_three_and_two_and_scores_its_pips():
    assert score("66565", "house") == 28           # 6+6+6+5+5, the most a house makes
    assert score("21121", "house") == 7            # 1+1+1+2+2


def test_five_or_four_of_a_kind_is_not_a_house():
    assert score("55555", "house") == 0
    assert score("44442", "house") == 0


def test_choice_is_the_sum_of_any_five_dice():
    assert score("66531", "choice") == 21


def test_balut_always_scores_30_at_stc_whatever_the_face():
    assert score("11111", "balut") == 30
    assert score("66666", "balut") == 30
    assert score("66665", "balut") == 0


def test_balut_scores_20_plus_its_pips_at_ibf():
    assert score("66666", "balut", IBF) == 50      # 20 + 30
    assert score("11111", "balut", IBF) == 25      # 20 + 5


def test_kept_dice_keep_their_faces_and_thrown_dice_take_the_next_row_of_faces():
    state = given_game()
    # Throw 1: 4 4 1 2 6; keep dice 0, 1 (the fours); throw 2 gives 5 5 4 3 4 at positions 2-4 -> 4 4 4 3 4.
    state = turn(state, "44126/55434/11111", [0, 1], category="fours")
    assert row(state, 0, "fours") == (16,)         # four fours


def test_the_best_stc_sheet_is_183():
    state = given_game()
    for dice, category in [("44444", "fours"), ("55555", "fives"), ("66666", "sixes"), ("23456", "straight"),
                           ("66655", "house"), ("66666", "choice"), ("33333", "balut")]:
        state = turn(state, dice, category=category)
    assert state.phase == "ended"
    # 20 + 25 + 30 + 20 + 28 + 30 + 30 = 183, the seed's maximum
    assert state.result.totals == (183,) and state.result.points == (183,)


def test_a_scratched_row_stays_zero_and_counts_in_the_total():
    state = given_game()
    for dice, category in [("12346", "straight"), ("44412", "fours"), ("55123", "fives"), ("66612", "sixes"),
                           ("12345", "house"), ("12345", "choice"), ("12345", "balut")]:
        state = turn(state, dice, category=category)
    # 0 + 12 + 10 + 18 + 0 + 15 + 0 = 55
    assert state.result.totals == (55,)


# IBF points (docs/balut.md §5), on sheets written by hand: rows in order fours, fives, sixes, straight,
# house, choice, balut, four entries each.
IBF_SHEET = (
    (16, 12, 12, 12),        # 52: reaches the 52 of fours -> 2
    (15, 15, 15, 15),        # 60: short of 65 -> 0
    (18, 18, 24, 18),        # 78: reaches 78 -> 2
    (15, 20, 20, 15),        # every straight made -> 4
    (28, 0, 27, 26),         # a scratched house -> 0
    (25, 25, 25, 24),        # 99: short of 100 -> 0
    (50, 0, 35, 0),          # two Baluts -> 2 each = 4
)


def test_ibf_row_points_on_a_hand_written_sheet():
    assert row_points(IBF_SHEET, IBF) == {"fours": 2, "sixes": 2, "straight": 4, "balut": 4}


def test_ibf_total_bands():
    # Total of IBF_SHEET: 52 + 60 + 78 + 70 + 81 + 99 + 85 = 525 -> the 500-549 band: 3 points.
    assert sum(map(sum, IBF_SHEET)) == 525
    assert final_points(IBF_SHEET, IBF) == 2 + 2 + 4 + 4 + 3
    for total, points in [(0, -2), (299, -2), (300, -1), (349, -1), (350, 0), (400, 1), (649, 5), (650, 6),
                          (900, 6)]:
        assert total_band_points(total) == points, total


def test_ibf_sheet_fills_each_row_four_times_and_a_fifth_is_refused():
    state = given_game(profile=IBF)
    for _ in range(4):
        state = turn(state, "44444", category="fours")
    assert row(state, 0, "fours") == (20, 20, 20, 20)
    state = when(state, StartTurn(faces=faces("44444")), Roll(0))
    then_refused(state, Score(0, "fours"), "row_full", "seat 0's fours row is full: each row is written 4 times")


@pytest.mark.parametrize("profile", [STC, IBF])
def test_equal_results_share_a_place(profile):
    state = given_game(players=2, profile=profile)
    rows = ["fours", "fives", "sixes", "straight", "house", "choice", "balut"] * profile.fills
    for category in rows:
        for _ in range(2):
            state = turn(state, "12346", category=category)
    assert state.result.places == (1, 1) and state.result.winners == (0, 1)
