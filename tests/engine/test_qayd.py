"""Recorded tables and Qayd (قيد, §8): illegal plays are stored, an accusation is checked against the log."""

from domain.baloot.events import Bid, CallQayd, Declare, Double, PlayCard, RecordResult
from tests.engine.given import card, cards, given_deal, play_out, then_refused, when

# Hokum ♠ (face-up 8♠) bought by seat 0, who holds the sira Q-K-A♥ (2 GP in Hokum).
HANDS = [
    "TS AS 8S AH KH QH AD KD",
    "7S KS JH TH 9H JD TD 9D",
    "9S QS 8H 7H QD 8D 7D AC",
    "JS KC QC JC TC 9C 8C 7C",
]
SIRA = tuple(cards("QH KH AH"))
# Action indices: bids 0-4 (hokum, pass, pass, pass, confirm), doubles 5-6, declaration 7, then the cards.
LEAD, ANSWER = 8, 9


def deal(table_mode="recorded", double=False):
    state = given_deal(dealer=3, hands=HANDS, faceup="8S", receiver=0, table_mode=table_mode)
    state = when(state, Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"), Bid(0, "confirm"))
    if double:   # three doubling actions instead of two: indices shift by one
        state = when(state, Double(1, "double", closed=False), Double(0, "pass"), Double(2, "pass"))
    else:
        state = when(state, Double(1, "pass"), Double(3, "pass"))
    return when(state, Declare(0, (SIRA,)), PlayCard(0, card("AH")))


def revoked(double=False):
    """Seat 1 answers A♥ with J♦ while holding J♥ 10♥ 9♥."""
    return when(deal(double=double), PlayCard(1, card("JD")))


# ---------------------------------------------------------------- the record


def test_a_recorded_table_stores_an_illegal_play_with_its_offence():
    state = revoked()
    assert not state.hands[1] >> card("JD") & 1          # the card was played as made
    assert state.trick == (card("AH"), card("JD"))
    index, seat, rule, _ = state.offences[0]
    assert (index, seat, rule) == (ANSWER, 1, "revoke")


def test_a_strict_table_refuses_the_same_play():
    then_refused(deal(table_mode="strict"), PlayCard(1, card("JD")), "revoke")


# ---------------------------------------------------------------- verdicts


def test_proven_qayd_gives_the_other_team_the_deal_and_its_projects():
    state = when(revoked(), CallQayd(2, ANSWER))
    verdict = state.result.qayd
    assert verdict.proven and verdict.rule == "revoke" and verdict.accused == 1
    assert state.phase == "scored"
    assert state.result.game_points == (18, 0)          # 16 x 1 + A's sira 2; B gets 0


def test_proven_qayd_in_a_doubled_deal_multiplies_the_deal_value():
    state = when(revoked(double=True), CallQayd(0, ANSWER + 1))
    assert state.result.qayd.proven
    assert state.result.game_points == (34, 0)          # 16 x 2 + sira 2


def test_unfounded_qayd_loses_the_deal_for_the_accusers():
    state = when(deal(), PlayCard(1, card("9H")), CallQayd(2, ANSWER))    # 9♥ follows suit: legal
    verdict = state.result.qayd
    assert not verdict.proven
    assert state.result.game_points == (0, 16)          # B takes 16; B declared nothing


def test_unfounded_qayd_by_the_defenders_hands_the_buyer_its_projects():
    state = when(deal(), CallQayd(1, LEAD))             # A♥ lead was legal
    assert not state.result.qayd.proven
    assert state.result.game_points == (18, 0)          # 16 + A's sira 2


def test_qayd_during_review_after_the_last_trick_is_proven():
    state = play_out(revoked())
    assert state.phase == "review" and state.result is None
    state = when(state, CallQayd(0, ANSWER))
    assert state.result.qayd.proven
    assert state.result.game_points == (18, 0)


# ---------------------------------------------------------------- refusals


def test_qayd_at_a_strict_table_is_refused():
    then_refused(deal(table_mode="strict"), CallQayd(1, LEAD), "qayd_strict_table")


def test_qayd_on_own_team_is_refused():
    then_refused(revoked(), CallQayd(3, ANSWER), "qayd_own_team")


def test_qayd_on_a_missing_index_is_refused():
    then_refused(revoked(), CallQayd(0, 99), "qayd_index")


def test_qayd_on_a_negative_index_is_refused():
    then_refused(revoked(), CallQayd(0, -1), "qayd_index")


def test_qayd_after_the_result_is_recorded_is_refused():
    state = when(play_out(revoked()), RecordResult())
    then_refused(state, CallQayd(0, ANSWER), "qayd_closed")


def test_record_result_scores_the_deal_after_the_last_trick():
    state = play_out(deal())
    assert state.phase == "review"
    state = when(state, RecordResult())
    assert state.phase == "scored"
    assert sum(state.result.card_points) == 162
    assert state.result.project_gp == (2, 0)            # the lone declared sira


def test_record_result_before_the_last_trick_is_refused():
    then_refused(deal(), RecordResult(), "not_in_review")
