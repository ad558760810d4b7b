"""Doubling (§4, §10): who is asked, the Hokum chain, open/closed, the Sun double and its threshold."""

import msgspec

from domain.baloot.events import Bid, Double
from domain.baloot.profiles import SAUDI
from tests.engine.given import given_deal, then_refused, when

DECK = tuple(range(32))   # face-up deck[20] = J♦


def hokum_by(seat, dealer=3, profile=SAUDI, scores_before=(0, 0)):
    """``seat`` bids Hokum, everyone else passes, ``seat`` confirms."""
    state = given_deal(dealer=dealer, deck=DECK, profile=profile, scores_before=scores_before)
    for s in state.order:
        state = when(state, Bid(s, "hokum" if s == seat else "pass"))
    return when(state, Bid(seat, "confirm"))


def sun_by_seat_0(scores_before=(0, 0), profile=SAUDI):
    state = given_deal(dealer=3, deck=DECK, profile=profile, scores_before=scores_before)
    return when(state, Bid(0, "sun"))


# ---------------------------------------------------------------- who is asked


def test_defenders_are_asked_in_speaking_order():
    state = hokum_by(1, dealer=0)          # order 1, 2, 3, 0: defenders 2 then 0
    assert state.phase == "doubling"
    assert state.turn == 2
    state = when(state, Double(2, "pass"))
    assert state.turn == 0


def test_both_defenders_declining_starts_play_undoubled():
    state = when(hokum_by(1, dealer=0), Double(2, "pass"), Double(0, "pass"))
    assert state.phase == "playing"
    assert state.turn == 1                 # dealer + 1 leads
    assert state.contract.multiplier == 1


def test_after_a_double_the_buyers_team_is_asked_in_speaking_order():
    state = when(hokum_by(1, dealer=0), Double(2, "double", closed=False))
    assert state.turn == 1                 # buyer team seats 1 and 3, in order 1, 2, 3, 0
    state = when(state, Double(1, "pass"))
    assert state.turn == 3


def test_a_buyer_may_not_double_his_own_contract():
    state = hokum_by(0)                    # defenders 1 and 3; seat 0 is not asked
    then_refused(state, Double(0, "double", closed=False), "not_your_turn")


# ---------------------------------------------------------------- the Hokum chain


def test_full_hokum_chain_double_three_four_gahwa():
    state = hokum_by(0)                    # dealer 3: order 0 1 2 3, defenders 1 and 3
    state = when(state, Double(1, "double", closed=False))
    assert state.contract.multiplier == 2 and state.phase == "doubling"
    state = when(state, Double(0, "three", closed=False))
    assert state.contract.multiplier == 3 and state.turn == 1
    state = when(state, Double(1, "four", closed=False))
    assert state.contract.multiplier == 4 and state.turn == 0
    state = when(state, Double(0, "gahwa"))
    assert state.contract.gahwa is True
    assert state.contract.multiplier == 4
    assert state.phase == "playing" and state.turn == 0


def test_declined_double_by_buyers_team_starts_play_at_times_two():
    state = when(hokum_by(0), Double(1, "double", closed=False), Double(0, "pass"), Double(2, "pass"))
    assert state.phase == "playing"
    assert state.contract.multiplier == 2


def test_declined_three_by_defenders_starts_play_at_times_three():
    state = when(hokum_by(0), Double(1, "pass"), Double(3, "double", closed=False),
                 Double(0, "pass"), Double(2, "three", closed=False), Double(1, "pass"), Double(3, "pass"))
    assert state.phase == "playing"
    assert state.contract.multiplier == 3


def test_declined_four_starts_play_at_times_four_without_gahwa():
    state = when(hokum_by(0), Double(1, "double", closed=False), Double(0, "three", closed=False),
                 Double(1, "four", closed=False), Double(0, "pass"), Double(2, "pass"))
    assert state.phase == "playing"
    assert state.contract.multiplier == 4
    assert state.contract.gahwa is False


def test_three_before_a_double_is_refused():
    err = then_refused(hokum_by(0), Double(1, "three", closed=False), "double_order")
    assert "double" in err.message


def test_four_right_after_a_double_is_refused():
    state = when(hokum_by(0), Double(1, "double", closed=False))
    then_refused(state, Double(0, "four", closed=False), "double_order")


def test_gahwa_right_after_a_three_is_refused():
    state = when(hokum_by(0), Double(1, "double", closed=False), Double(0, "three", closed=False))
    then_refused(state, Double(1, "gahwa"), "double_order")


# ---------------------------------------------------------------- open / closed


def test_the_doubler_chooses_a_closed_game():
    state = when(hokum_by(0), Double(1, "double", closed=True))
    assert state.contract.closed is True


def test_the_three_caller_may_reopen_the_game():
    state = when(hokum_by(0), Double(1, "double", closed=True), Double(0, "three", closed=False))
    assert state.contract.closed is False


def test_the_four_caller_may_close_the_game():
    state = when(hokum_by(0), Double(1, "double", closed=False), Double(0, "three", closed=False),
                 Double(1, "four", closed=True), Double(0, "pass"), Double(2, "pass"))
    assert state.contract.closed is True


def test_gahwa_is_always_open():
    state = when(hokum_by(0), Double(1, "double", closed=True), Double(0, "three", closed=True),
                 Double(1, "four", closed=True), Double(0, "gahwa"))
    assert state.contract.gahwa is True
    assert state.contract.closed is False


# ---------------------------------------------------------------- Sun


def test_sun_double_allowed_when_buyer_has_100_and_doublers_less():
    state = sun_by_seat_0(scores_before=(100, 99))
    assert state.phase == "doubling"
    assert state.turn == 1


def test_sun_is_double_only_and_play_starts_after_it():
    state = when(sun_by_seat_0(scores_before=(100, 99)), Double(1, "double"))
    assert state.contract.multiplier == 2
    assert state.phase == "playing"        # no Three in Sun
    assert state.turn == 0


def test_sun_three_is_refused():
    then_refused(sun_by_seat_0(scores_before=(120, 0)), Double(1, "three"), "double_order")


def test_sun_double_declined_by_both_defenders_starts_play():
    state = when(sun_by_seat_0(scores_before=(120, 0)), Double(1, "pass"), Double(3, "pass"))
    assert state.phase == "playing" and state.contract.multiplier == 1


def test_sun_double_phase_skipped_when_buyer_below_100():
    assert sun_by_seat_0(scores_before=(99, 0)).phase == "playing"


def test_sun_double_phase_skipped_when_doublers_have_100():
    assert sun_by_seat_0(scores_before=(140, 100)).phase == "playing"


def test_sun_double_phase_skipped_at_the_start_of_a_game():
    assert sun_by_seat_0(scores_before=(0, 0)).phase == "playing"


def test_sun_double_threshold_uses_the_buyers_team_not_seat_zero():
    # Seat 1 (team B) buys Sun: B has 100, A 50 -> A may double.
    state = given_deal(dealer=3, deck=DECK, scores_before=(50, 100))
    state = when(state, Bid(0, "pass"), Bid(1, "sun"))
    assert state.phase == "doubling"
    assert state.turn == 0                 # defenders 0 and 2, in order


def test_sun_double_threshold_none_allows_a_double_at_any_score():
    profile = msgspec.structs.replace(SAUDI, sun_double_threshold=None)
    state = sun_by_seat_0(scores_before=(0, 0), profile=profile)
    assert state.phase == "doubling"


def test_a_closed_sun_double_is_refused():
    then_refused(sun_by_seat_0(scores_before=(100, 0)), Double(1, "double", closed=True), "double_closed")


def test_ashkal_follows_the_sun_threshold():
    state = given_deal(dealer=3, deck=DECK, scores_before=(110, 20))
    state = when(state, Bid(0, "pass"), Bid(1, "pass"), Bid(2, "ashkal"))
    assert state.phase == "doubling"
    state = when(state, Double(1, "double"))
    assert state.contract.multiplier == 2 and state.phase == "playing"


# ---------------------------------------------------------------- doubling switched off


def test_profile_without_doubling_skips_the_phase():
    profile = msgspec.structs.replace(SAUDI, doubling=False)
    state = hokum_by(0, profile=profile)
    assert state.phase == "playing"
    then_refused(state, Double(1, "double", closed=False), "not_doubling")
