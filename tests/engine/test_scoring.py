"""§6.3 and §6 step 6: converting card points, failure and ties, Kaboot, doubling, Gahwa."""

import pytest

from domain.baloot.events import Contract
from domain.baloot.profiles import SAUDI, profile_named
from domain.baloot.projects import evaluate
from domain.baloot.scoring import hokum_gp, score_deal, sun_gp
from tests.engine.given import cards

HOKUM = Contract("hokum", 0, buyer=0)
SUN = Contract("sun", None, buyer=0)


@pytest.mark.parametrize("points, gp", [(65, 13), (66, 14), (64, 12), (130, 26), (0, 0), (7, 2), (123, 24)])
def test_sun_conversion_keeps_a_trailing_five(points, gp):
    assert sun_gp(points) == gp


@pytest.mark.parametrize("points, gp", [((96, 66), (9, 7)), ((86, 76), (8, 8)), ((84, 78), (8, 8)),
                                        ((65, 97), (6, 10)), ((162, 0), (16, 0)), ((81, 81), (8, 8))])
def test_hokum_conversion_sums_to_sixteen(points, gp):
    assert hokum_gp(points) == gp


def test_hokum_sum_of_seventeen_takes_from_the_larger_units_digit():
    # 162 points split with both units digits 6 round both sides up: 10 + 7 = 17.
    assert hokum_gp((96, 66)) == (9, 7)       # equal units digits: take 1 from the side with more points
    assert hokum_gp((66, 96)) == (7, 9)


def test_hokum_sum_of_fifteen_adds_to_the_larger_units_digit():
    # Not reachable from a deal's 162 points, but the rule is defined on any pair: 74/74 → 7 + 7 = 14,
    # 75/84 → 7 + 8 = 15: add 1 to the side with the larger units digit (5 > 4).
    assert hokum_gp((75, 84)) == (8, 8)


def test_no_abnat_rounding_switch():
    assert hokum_gp((86, 76), "no_abnat") == (9, 7)


def score(contract, points, tricks=(4, 4), projects=(), project_team=None, baloot=(0, 0), profile=SAUDI):
    return score_deal(profile, contract, points, tricks, list(projects), project_team, baloot)


def test_buyer_with_more_gp_keeps_its_own():
    r = score(HOKUM, (100, 62))                # 10 / 6
    assert r.game_points == (10, 6) and not r.failed


def test_buyer_with_fewer_gp_fails_and_the_other_team_takes_the_pot():
    r = score(HOKUM, (62, 100))                # 6 / 10: buyer A fails, B gets 16
    assert r.failed and r.game_points == (0, 16)


def test_failed_buyer_gives_the_pot_and_all_awarded_projects():
    sira = evaluate(1, tuple(cards("7H 8H 9H")), "saudi", False)   # 2 GP to team B
    r = score(HOKUM, (62, 100), projects=[sira], project_team=1)
    assert r.game_points == (0, 18)


def test_hokum_tie_buyer_fails_unless_raw_strictly_higher():
    r = score(HOKUM, (81, 81))                 # 8/8, raw 81 = 81: buyer fails
    assert r.failed and r.game_points == (0, 16)
    r = score(HOKUM, (81, 81), baloot=(1, 0))  # raw 101 > 81: buyer holds; keeps 8 + Baloot 2
    assert not r.failed and r.game_points == (10, 8)


def test_sun_tie_with_equal_raw_splits_the_deal():
    r = score(SUN, (65, 65))                   # 13/13, raw equal
    assert r.split and not r.failed and r.game_points == (13, 13)


def test_sun_equal_raw_buyer_fails_switch():
    # seed 000: «إذا كان مع الفريقين النصف بالضبط فالفريق المشتري قد سقط»: 13/13, raw 65/65, the buyer fails.
    profile = profile_named("saudi", {"sun_equal_raw": "buyer_fails"})
    r = score(SUN, (65, 65), profile=profile)
    assert r.failed and not r.split and r.game_points == (0, 26)


def test_sun_equal_raw_buyer_fails_switch_leaves_unequal_raw_alone():
    profile = profile_named("saudi", {"sun_equal_raw": "buyer_fails"})
    r = score(SUN, (65, 65), baloot=(1, 0), profile=profile)   # raw 85 vs 65: the buyer holds
    assert not r.failed and r.game_points == (13 + 2, 13)


def test_sun_equal_raw_splits_by_default():
    assert SAUDI.sun_equal_raw == "split"


def test_sun_equal_gp_is_decided_by_raw_totals():
    # 70/60 → 14/12; a Sun sira (4 GP, raw 20) for team B makes 14/16: a plain loss, not a tie. An equal
    # GP with unequal raw totals: 60/70 → 12/14, sira for A → 16/14 ... so build the tie from 65/65
    # (13/13) with Baloot raw values, which count in the raw total but not in g.
    r = score(SUN, (65, 65), baloot=(0, 1))    # raw 65 vs 85: the buyer is lower and fails
    assert r.failed and r.game_points == (0, 26 + 2)
    r = score(SUN, (65, 65), baloot=(1, 0))    # raw 85 vs 65: the buyer holds, each keeps its own
    assert not r.failed and r.game_points == (13 + 2, 13)


def test_doubled_tie_is_lost_by_the_defenders():
    doubled = Contract("sun", None, buyer=0, multiplier=2)
    r = score(doubled, (65, 65))
    assert not r.failed and r.game_points == (52, 0)   # (26) × 2 to the buyer


def test_doubled_deal_winner_takes_pot_and_projects_times_multiplier():
    four = Contract("hokum", 0, buyer=0, multiplier=4)
    sira = evaluate(1, tuple(cards("7H 8H 9H")), "saudi", False)     # 2 GP, team B
    r = score(four, (100, 62), projects=[sira], project_team=1)      # A: 10 vs B: 6 + 2 → A wins
    assert r.game_points == ((16 + 2) * 4, 0)


def test_project_multiplier_cap():
    profile = profile_named("saudi", {"project_multiplier_cap": 2})
    four = Contract("hokum", 0, buyer=0, multiplier=4)
    sira = evaluate(0, tuple(cards("7H 8H 9H")), "saudi", False)
    r = score(four, (100, 62), projects=[sira], project_team=0, profile=profile)
    assert r.game_points == (16 * 4 + 2 * 2, 0)


def test_baloot_is_never_multiplied():
    three = Contract("hokum", 0, buyer=0, multiplier=3)
    r = score(three, (100, 62), baloot=(0, 1))   # clear win for A; Baloot stays with B
    assert r.game_points == (48, 2)


def test_kaboot_hokum_25_plus_projects_not_multiplied():
    doubled = Contract("hokum", 0, buyer=0, multiplier=2)
    sira = evaluate(0, tuple(cards("7H 8H 9H")), "saudi", False)
    r = score(doubled, (162, 0), tricks=(8, 0), projects=[sira], project_team=0)
    assert r.kaboot and r.game_points == (25 + 2, 0)


def test_kaboot_multiplied_switch():
    profile = profile_named("saudi", {"kaboot_multiplied": True})
    doubled = Contract("hokum", 0, buyer=0, multiplier=2)
    r = score(doubled, (162, 0), tricks=(8, 0), profile=profile)
    assert r.game_points == (50, 0)


def test_kaboot_sun_44_and_by_the_defenders():
    r = score(SUN, (0, 130), tricks=(0, 8))
    assert r.kaboot and r.failed and r.game_points == (0, 44)


def test_gahwa_winner_takes_the_game():
    gahwa = Contract("hokum", 0, buyer=0, multiplier=4, gahwa=True)
    r = score(gahwa, (62, 100), baloot=(1, 0))
    assert r.failed and r.gahwa_winner == 1 and r.game_points == (0, 152)
