"""Baloot (§6.1, §6.3 step 7): announced with the second of K/Q of trump, +2 GP never multiplied."""

import msgspec

from domain.baloot.events import Bid, Contract, Declare, Double, PlayCard
from domain.baloot.profiles import SAUDI
from domain.baloot.projects import compare, evaluate
from domain.baloot.scoring import score_deal
from tests.engine.given import card, cards, given_deal, play_out, then_refused, when

SPADES = 0

# Hokum ♠ on the face-up K♠ bought by seat 0, who holds K♠ Q♠; seat 2 holds J 9 A 10 of trump.
HANDS = [
    "KS QS AH KH AD KD AC KC",
    "8S 7S QH JH QD JD QC JC",
    "JS 9S AS TS TH TD TC 9H",
    "9D 8D 7D 9C 8C 7C 8H 7H",
]

# Seat 0 holds the hundred 10-J-Q-K-A♠ around the Baloot; Hokum ♠ on the face-up A♠.
HUNDRED = [
    "TS JS QS KS AS AH AD AC",
    "9S 8S KH QH KD QD KC QC",
    "7S JH TH 9H JD TD 9D JC",
    "8H 7H 8D 7D TC 9C 8C 7C",
]


def hokum(hands, faceup, profile=SAUDI):
    state = given_deal(dealer=3, hands=hands, faceup=faceup, receiver=0, profile=profile)
    return when(state, Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"), Bid(0, "confirm"),
                Double(1, "pass"), Double(3, "pass"))


def first_trick(state):
    # K♠ led, 7♠ (cannot beat), partner's 10♠ (beats the K), seat 3 has no trump: seat 2 wins and leads.
    return when(state, PlayCard(0, card("KS")), PlayCard(1, card("7S")), PlayCard(2, card("TS")),
                PlayCard(3, card("7H")))


# ---------------------------------------------------------------- announcing


def test_baloot_is_announced_with_the_second_of_k_and_q():
    state = first_trick(hokum(HANDS, "KS"))
    state = when(state, PlayCard(2, card("JS")), PlayCard(3, card("8H")), PlayCard(0, card("QS"), baloot=True))
    assert state.baloot_seats == (0,)


def test_baloot_with_the_first_of_k_and_q_is_refused():
    err = then_refused(hokum(HANDS, "KS"), PlayCard(0, card("KS"), baloot=True), "false_baloot")
    assert "seat 0" in err.message


def test_baloot_with_a_card_that_is_not_k_or_q_of_trump_is_refused():
    state = when(hokum(HANDS, "KS"), PlayCard(0, card("KS")))
    then_refused(state, PlayCard(1, card("7S"), baloot=True), "false_baloot")


def test_baloot_with_the_queen_of_a_plain_suit_is_refused():
    state = when(hokum(HANDS, "KS"), PlayCard(0, card("AH")))
    then_refused(state, PlayCard(1, card("QH"), baloot=True), "false_baloot")   # Q♥: ♠ is trump


def test_baloot_in_sun_is_refused():
    state = given_deal(dealer=3, hands=HANDS, faceup="KS", receiver=0)
    state = first_trick(when(state, Bid(0, "sun")))
    state = when(state, PlayCard(2, card("JS")), PlayCard(3, card("8H")))
    then_refused(state, PlayCard(0, card("QS"), baloot=True), "false_baloot")


def test_a_baloot_counts_two_in_a_played_deal():
    result = play_out(hokum(HANDS, "KS"), baloot=True).result
    assert sum(result.baloot) == 2


# ---------------------------------------------------------------- scoring


def contract(**kw):
    return Contract("hokum", SPADES, 0, **kw)


def test_baloot_adds_two_to_the_holders_team():
    # 100/62 -> 10/6 (§6.3 step 3); A keeps its 10 and adds Baloot 2.
    result = score_deal(SAUDI, contract(), (100, 62), (5, 3), [], None, (1, 0))
    assert result.game_points == (12, 6)
    assert result.baloot == (2, 0)


def test_baloot_is_never_multiplied():
    # Doubled x2, A wins: (16 x 2) + Baloot 2 (not doubled).
    result = score_deal(SAUDI, contract(multiplier=2), (100, 62), (5, 3), [], None, (1, 0))
    assert result.game_points == (34, 0)


def test_baloot_of_the_losing_side_of_a_doubled_deal_stays_with_it():
    # A wins x2 by g (10 > 6): B's Baloot stays with B, still 2.
    result = score_deal(SAUDI, contract(multiplier=2), (100, 62), (5, 3), [], None, (0, 1))
    assert result.game_points == (32, 2)


def test_baloot_is_outside_the_project_comparison():
    # A holds only Baloot; B's sira (2) still wins the project comparison. 100/62 -> 10/6, +2 sira to B.
    projects = [evaluate(1, tuple(cards("7H 8H 9H")), "saudi", False)]
    team = compare(projects, (0, 1, 2, 3))
    result = score_deal(SAUDI, contract(), (100, 62), (5, 3), projects, team, (1, 0))
    assert result.project_gp == (0, 2)
    assert result.game_points == (12, 8)


def test_baloot_is_not_part_of_g_but_breaks_the_hokum_tie():
    # 80/82 -> 8/8: equal g. Buyer raw 80 + Baloot 20 = 100 > 82: the buyer does not fail (§6.3 step 5).
    result = score_deal(SAUDI, contract(), (80, 82), (4, 4), [], None, (1, 0))
    assert not result.failed
    assert result.game_points == (10, 8)


def test_buyer_fails_and_baloot_goes_to_the_winner_by_default():
    # 60/102 -> 6/10: buyer A fails; B takes the pot 16 and A's Baloot 2.
    result = score_deal(SAUDI, contract(), (60, 102), (3, 5), [], None, (1, 0))
    assert result.failed
    assert result.game_points == (0, 18)


def test_buyer_fails_and_baloot_stays_with_its_holder_when_switched():
    profile = msgspec.structs.replace(SAUDI, baloot_on_failure="holder")
    result = score_deal(profile, contract(), (60, 102), (3, 5), [], None, (1, 0))
    assert result.game_points == (2, 16)


def test_kaboot_takes_the_opponents_baloot_by_default():
    # B takes all 8 tricks: 25 + A's Baloot 2.
    result = score_deal(SAUDI, contract(), (0, 162), (0, 8), [], None, (1, 0))
    assert result.game_points == (0, 27)


# ---------------------------------------------------------------- Baloot inside a Hundred


def hundred_deal(profile=SAUDI, declare=True):
    state = hokum(HUNDRED, "AS", profile=profile)
    if declare:
        state = when(state, Declare(0, (tuple(cards("TS JS QS KS AS")),)))
    return play_out(state, baloot=True)


def test_baloot_counts_inside_a_declared_hundred_by_default():
    assert sum(hundred_deal().result.baloot) == 2


def test_baloot_absorbed_by_a_declared_hundred_when_switched():
    profile = msgspec.structs.replace(SAUDI, baloot_absorbed_by_hundred=True)
    assert hundred_deal(profile).result.baloot == (0, 0)


def test_baloot_absorbed_only_when_the_hundred_is_declared():
    profile = msgspec.structs.replace(SAUDI, baloot_absorbed_by_hundred=True)
    assert sum(hundred_deal(profile, declare=False).result.baloot) == 2
