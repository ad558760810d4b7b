"""Bidding (§3, §10): speaking order, the two rounds, before-you, confirm, wala, Kawesh, completing the deal."""

import msgspec

from domain.baloot.events import Bid, Contract, DealVoided
from domain.baloot.profiles import SAUDI
from tests.engine.given import events_of, given_deal, hand_of, then_refused, when

# A deck in card order: dealer 3 deals seat 0 first; the face-up card (deck[20]) is J♦, so round-1 Hokum is ♦.
# First five: seat 0 7S 8S 9S JH QH, seat 1 TS JS QS KH AH, seat 2 KS AS 7H 7D 8D, seat 3 8H 9H TH 9D TD.
DECK = tuple(range(32))
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)

# One suit per seat, so any card dealt to the wrong seat shows at once.
SUITED = ["AS KS QS JS TS 9S 8S 7S", "AH KH QH JH TH 9H 8H 7H",
          "AD KD QD JD TD 9D 8D 7D", "AC KC QC JC TC 9C 8C 7C"]

# Seat 1's first five are all 7/8/9: Kawesh (كوش).
KAWESH = ["AS KS QS JS TS AH KH QH", "7S 8S 9S 7H 8H 9H JH TH",
          "AD KD QD JD TD 9D 8D 7D", "AC KC QC JC TC 9C 8C 7C"]


def deal(dealer=3, profile=SAUDI, **kw):
    return given_deal(dealer=dealer, deck=DECK, profile=profile, **kw)


def no_window():
    return msgspec.structs.replace(SAUDI, sun_priority_window=False)


# ---------------------------------------------------------------- speaking order


def test_speaking_starts_at_dealer_plus_one():
    state = deal(dealer=1)
    assert state.turn == 2
    state = when(state, Bid(2, "pass"))
    assert state.turn == 3
    state = when(state, Bid(3, "pass"))
    assert state.turn == 0                      # seat order wraps round: 2, 3, 0, 1
    state = when(state, Bid(0, "pass"))
    assert state.turn == 1


def test_a_seat_out_of_turn_is_refused():
    err = then_refused(deal(dealer=3), Bid(2, "pass"), "not_your_turn")
    assert "seat 0" in err.message


# ---------------------------------------------------------------- round 1


def test_round_one_hokum_is_in_the_faceup_suit():
    state = when(deal(), Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"), Bid(0, "confirm"))
    assert state.contract == Contract("hokum", DIAMONDS, 0)


def test_round_one_hokum_in_another_suit_is_refused():
    then_refused(deal(), Bid(0, "hokum", SPADES), "hokum_suit")


def test_after_a_hokum_later_seats_cannot_bid_hokum():
    state = when(deal(), Bid(0, "hokum"))
    then_refused(state, Bid(1, "hokum"), "hokum_taken")


def test_a_hokum_does_not_end_the_round():
    state = when(deal(), Bid(0, "hokum"))
    assert state.contract is None and state.turn == 1


def test_sun_without_an_earlier_hokum_ends_the_bidding_at_once():
    state = when(deal(), Bid(0, "pass"), Bid(1, "sun"))
    assert state.contract == Contract("sun", None, 1)
    assert state.phase == "playing"             # scores 0-0: no Sun double (§4)


def test_ashkal_is_for_the_dealer():
    state = when(deal(dealer=3), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "ashkal"))
    assert state.contract == Contract("sun", None, 3, ashkal=True)


def test_ashkal_is_for_the_seat_before_the_dealer():
    state = when(deal(dealer=3), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "ashkal"))
    assert state.contract == Contract("sun", None, 2, ashkal=True)


def test_ashkal_is_refused_to_the_first_speaker():
    then_refused(deal(dealer=3), Bid(0, "ashkal"), "ashkal_seat")


def test_ashkal_is_refused_to_the_second_speaker():
    state = when(deal(dealer=3), Bid(0, "pass"))
    then_refused(state, Bid(1, "ashkal"), "ashkal_seat")


def test_sun_after_a_hokum_asks_the_hokum_bidder_before_you():
    state = when(deal(), Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "sun"))
    assert state.contract is None
    assert state.turn == 0                      # the earlier Hokum bidder is asked قبلك


def test_before_you_claims_the_sun_for_the_claimant():
    state = when(deal(), Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "sun"), Bid(0, "before_you"))
    assert state.contract == Contract("sun", None, 0, ashkal=False)


def test_before_you_on_an_ashkal_makes_a_plain_sun_for_the_claimant():
    state = when(deal(), Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "ashkal"), Bid(0, "before_you"))
    assert state.contract == Contract("sun", None, 0, ashkal=False)


def test_passing_the_before_you_window_leaves_the_sun_to_its_bidder():
    state = when(deal(), Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "sun"), Bid(0, "pass"))
    assert state.contract == Contract("sun", None, 2, ashkal=False)


def test_passing_the_before_you_window_leaves_the_ashkal_to_its_caller():
    state = when(deal(), Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "ashkal"), Bid(0, "pass"))
    assert state.contract == Contract("sun", None, 2, ashkal=True)


def test_the_asked_seat_may_only_answer_before_you_or_pass():
    state = when(deal(), Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "sun"))
    then_refused(state, Bid(0, "confirm"), "before_you_answer")


def test_without_the_priority_window_a_sun_after_a_hokum_is_fixed_at_once():
    state = when(deal(profile=no_window()), Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "sun"))
    assert state.contract == Contract("sun", None, 2)


def test_without_the_priority_window_an_ashkal_after_a_hokum_is_fixed_at_once():
    state = when(deal(profile=no_window()), Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "ashkal"))
    assert state.contract == Contract("sun", None, 2, ashkal=True)


def test_ashkal_seats_follow_the_dealer():
    # Dealer 0: order 1, 2, 3, 0; Ashkal is for seat 0 (dealer) and seat 3 (dealer + 3).
    state = deal(dealer=0)
    then_refused(state, Bid(1, "ashkal"), "ashkal_seat")
    state = when(state, Bid(1, "pass"))
    then_refused(state, Bid(2, "ashkal"), "ashkal_seat")
    state = when(state, Bid(2, "pass"), Bid(3, "ashkal"))
    assert state.contract == Contract("sun", None, 3, ashkal=True)


def test_a_standing_hokum_is_confirmed_by_its_bidder():
    state = when(deal(), Bid(0, "pass"), Bid(1, "hokum"), Bid(2, "pass"), Bid(3, "pass"))
    assert state.contract is None and state.turn == 1     # all four spoke: the bidder decides
    state = when(state, Bid(1, "confirm"))
    assert state.contract == Contract("hokum", DIAMONDS, 1)


def test_a_standing_hokum_may_be_turned_into_sun_by_its_bidder():
    state = when(deal(), Bid(0, "pass"), Bid(1, "hokum"), Bid(2, "pass"), Bid(3, "pass"), Bid(1, "sun"))
    assert state.contract == Contract("sun", None, 1)


def test_all_four_passing_starts_round_two_at_dealer_plus_one():
    state = when(deal(), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"))
    assert state.round == 2
    assert state.turn == 0
    assert state.contract is None


def test_wala_is_refused_in_round_one():
    err = then_refused(deal(), Bid(0, "wala"), "bid_not_allowed")
    assert "round 2" in err.message


# ---------------------------------------------------------------- round 2


def round_two(profile=SAUDI):
    return when(deal(profile=profile), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"))


def test_pass_is_refused_in_round_two():
    err = then_refused(round_two(), Bid(0, "pass"), "bid_not_allowed")
    assert "wala" in err.message


def test_second_hokum_in_the_faceup_suit_is_refused():
    then_refused(round_two(), Bid(0, "hokum", DIAMONDS), "hokum_suit")


def test_second_hokum_names_another_suit_and_is_confirmed():
    state = when(round_two(), Bid(0, "wala"), Bid(1, "hokum", CLUBS), Bid(2, "wala"), Bid(3, "wala"))
    assert state.turn == 1
    state = when(state, Bid(1, "confirm"))
    assert state.contract == Contract("hokum", CLUBS, 1)


def test_after_a_second_hokum_later_seats_cannot_bid_hokum():
    state = when(round_two(), Bid(0, "hokum", SPADES))
    then_refused(state, Bid(1, "hokum", HEARTS), "hokum_taken")


def test_sun_beats_a_second_round_hokum_through_the_before_you_window():
    state = when(round_two(), Bid(0, "hokum", SPADES), Bid(1, "sun"))
    assert state.turn == 0
    state = when(state, Bid(0, "pass"))
    assert state.contract == Contract("sun", None, 1)


def test_all_wala_voids_the_deal():
    state = when(round_two(), Bid(0, "wala"), Bid(1, "wala"), Bid(2, "wala"))
    events = events_of(state, Bid(3, "wala"))
    assert DealVoided("all_wala") in events
    state = when(state, Bid(3, "wala"))
    assert state.phase == "void"
    assert state.result.game_points == (0, 0)


def test_ashkal_is_allowed_in_round_two_by_default():
    state = when(round_two(), Bid(0, "wala"), Bid(1, "wala"), Bid(2, "ashkal"))
    assert state.contract == Contract("sun", None, 2, ashkal=True)


def test_ashkal_in_round_two_is_refused_when_switched_off():
    profile = msgspec.structs.replace(SAUDI, ashkal_in_round_two=False)
    state = when(round_two(profile), Bid(0, "wala"), Bid(1, "wala"))
    then_refused(state, Bid(2, "ashkal"), "ashkal_round_two")


# ---------------------------------------------------------------- Kawesh


def kawesh_deal():
    return given_deal(dealer=3, hands=KAWESH, faceup="AS", receiver=0)


def test_kawesh_with_five_low_cards_voids_the_deal():
    state = when(kawesh_deal(), Bid(0, "pass"))
    assert events_of(state, Bid(1, "kawesh"))[-1] == DealVoided("kawesh", 1)
    state = when(state, Bid(1, "kawesh"))
    assert state.phase == "void"


def test_kawesh_after_someone_bought_is_refused():
    state = when(kawesh_deal(), Bid(0, "hokum"))
    then_refused(state, Bid(1, "kawesh"), "kawesh")


def test_kawesh_without_five_low_cards_is_refused():
    then_refused(kawesh_deal(), Bid(0, "kawesh"), "kawesh")   # seat 0 holds A K Q J T


def test_kawesh_in_round_two_is_refused():
    state = when(kawesh_deal(), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"), Bid(0, "wala"))
    then_refused(state, Bid(1, "kawesh"), "kawesh")


# ---------------------------------------------------------------- completing the deal (§2)


def test_buyer_gets_the_faceup_card_and_two_others_three():
    # Seat 1 buys Hokum ♥ on the face-up 7♥: every seat must end with exactly its own suit.
    state = given_deal(dealer=3, hands=SUITED, faceup="7H", receiver=1)
    state = when(state, Bid(0, "pass"), Bid(1, "hokum"), Bid(2, "pass"), Bid(3, "pass"), Bid(1, "confirm"))
    for seat in range(4):
        assert hand_of(state, seat) == set(SUITED[seat].split())


def test_ashkal_gives_the_faceup_card_to_the_callers_partner():
    # Seat 2 calls Ashkal on the face-up 7♠: partner seat 0 takes 7♠ + 2, seat 2 takes 3.
    state = given_deal(dealer=3, hands=SUITED, faceup="7S", receiver=0)
    state = when(state, Bid(0, "pass"), Bid(1, "pass"), Bid(2, "ashkal"))
    assert state.contract.buyer == 2                       # the caller holds the contract
    assert "7S" in hand_of(state, 0)
    for seat in range(4):
        assert hand_of(state, seat) == set(SUITED[seat].split())


def _names(ids):
    return {"789TJQKA"[c & 7] + "SHDC"[c >> 3] for c in ids}


def test_deal_completion_order_on_a_plain_deck():
    # Deck 0..31, dealer 3, seat 1 buys: first five are deck[0:3]+[12:14] (seat 0), [3:6]+[14:16] (seat 1), ...
    # then from deck[21]: seat 0 takes 3 (21-23), seat 1 the face-up 20 + 2 (24-25), seat 2 26-28, seat 3 29-31.
    state = when(deal(), Bid(0, "pass"), Bid(1, "hokum"), Bid(2, "pass"), Bid(3, "pass"), Bid(1, "confirm"))
    assert hand_of(state, 0) == _names([0, 1, 2, 12, 13, 21, 22, 23])
    assert hand_of(state, 1) == _names([3, 4, 5, 14, 15, 20, 24, 25])
    assert hand_of(state, 2) == _names([6, 7, 8, 16, 17, 26, 27, 28])
    assert hand_of(state, 3) == _names([9, 10, 11, 18, 19, 29, 30, 31])


def test_deal_completion_after_ashkal_on_a_plain_deck():
    # Seat 2 calls Ashkal: partner seat 0 takes the face-up 20 + 21, 22; seat 1 23-25; seat 2 26-28.
    state = when(deal(), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "ashkal"))
    assert hand_of(state, 0) == _names([0, 1, 2, 12, 13, 20, 21, 22])
    assert hand_of(state, 1) == _names([3, 4, 5, 14, 15, 23, 24, 25])
    assert hand_of(state, 2) == _names([6, 7, 8, 16, 17, 26, 27, 28])
    assert hand_of(state, 3) == _names([9, 10, 11, 18, 19, 29, 30, 31])


def test_deal_completion_starts_at_dealer_plus_one_for_another_dealer():
    # Dealer 1: order 2, 3, 0, 1. Seat 2 takes deck[0:3]+[12:14]; seat 0 buys Sun (third to speak).
    # Completion from deck[21]: seat 2 21-23, seat 3 24-26, seat 0 face-up 20 + 27-28, seat 1 29-31.
    state = when(deal(dealer=1), Bid(2, "pass"), Bid(3, "pass"), Bid(0, "sun"))
    assert hand_of(state, 2) == _names([0, 1, 2, 12, 13, 21, 22, 23])
    assert hand_of(state, 3) == _names([3, 4, 5, 14, 15, 24, 25, 26])
    assert hand_of(state, 0) == _names([6, 7, 8, 16, 17, 20, 27, 28])
    assert hand_of(state, 1) == _names([9, 10, 11, 18, 19, 29, 30, 31])
