"""Sawa (سوا, §5): a claim to all remaining tricks, decided exactly against every defence."""

from domain.baloot.events import Bid, CallQayd, ClaimSawa, PlayCard, SawaClaimed
from domain.baloot.tricks import NO_TRUMP, sawa_holds
from tests.engine.given import card, events_of, given_deal, mask, then_refused, when

SPADES = 0

# Sun bought by seat 0 (face-up K♥). Team A (0, 2) holds A 10 K Q of ♠ ♥ ♦; team B holds the rest plus A♣.
HANDS = [
    "7C AS TS KS QS AH TH KH",      # seat 0
    "AC 7S 8S 9S 7H 8H 9H 7D",      # seat 1
    "KC QC JC QH AD TD KD QD",      # seat 2: no spade
    "8C 9C TC JS JH 8D 9D JD",      # seat 3
]


def sun_deal(table_mode="strict"):
    state = given_deal(dealer=3, hands=HANDS, faceup="KH", receiver=0, table_mode=table_mode)
    return when(state, Bid(0, "sun"))


def after_first_trick(table_mode="strict"):
    # 7♣, A♣ (11), J♣ (2), 8♣: seat 1 wins 13 and leads.
    state = when(sun_deal(table_mode), PlayCard(0, card("7C")), PlayCard(1, card("AC")), PlayCard(2, card("JC")),
                 PlayCard(3, card("8C")))
    assert state.points == (0, 13) and state.turn == 1
    return state


# ---------------------------------------------------------------- the exact check


def test_sawa_holds_with_the_last_trump_against_plain_cards():
    # One card each, Hokum ♠, seat 0 leads A♥: seat 1's 7♠ trumps it.
    hands = (mask("AH"), mask("7S"), mask("7H"), mask("8H"))
    assert not sawa_holds(hands, 0, (), 0, SPADES)
    assert sawa_holds(hands, 0, (), 1, SPADES)


def test_sawa_in_sun_ignores_a_would_be_trump():
    hands = (mask("AH"), mask("7S"), mask("7H"), mask("8H"))
    assert sawa_holds(hands, 0, (), 0, NO_TRUMP)


def test_sawa_fails_when_one_defence_wins_a_trick():
    # Seat 0 holds A♥ K♥ and leads; seat 1 holds 10♥ 7♥: it keeps the 10♥ for the K♥ (Sun).
    hands = (mask("AH KH"), mask("TH 7H"), mask("8H 7D"), mask("9H 8D"))
    assert not sawa_holds(hands, 0, (), 0, NO_TRUMP)


def test_sawa_holds_when_the_partner_covers_the_gap():
    # As above, but seat 2 holds the 10♥: team A wins both tricks whatever B plays.
    hands = (mask("AH KH"), mask("9H 7D"), mask("TH 8H"), mask("7H 8D"))
    assert sawa_holds(hands, 0, (), 0, NO_TRUMP)


# ---------------------------------------------------------------- through the deal


def test_a_valid_sawa_ends_the_play_and_awards_the_rest():
    state = when(after_first_trick(), PlayCard(1, card("7S")))   # seat 2 to play: A♠ with seat 0 covers
    events = events_of(state, ClaimSawa(2))
    assert events[0] == SawaClaimed(2, True)
    state = when(state, ClaimSawa(2))
    # Remaining card points 120 - 13 = 107, + 10 for the last trick, all to team A.
    assert state.points == (117, 13)
    assert state.tricks == (7, 1)
    assert state.phase == "scored"
    # Sun GP (§6.3 step 3): 117 -> q 23, r 2, q odd -> 24; 13 -> q 2 -> 2.
    assert state.result.game_points == (24, 2)


def test_sawa_is_refused_when_one_card_must_lose():
    # Seat 0 holds every top ♠ and ♥, but must lead its 7♣ some time and seat 1 holds the A♣.
    then_refused(sun_deal(), ClaimSawa(0), "false_sawa")


def test_an_invalid_sawa_is_refused_at_a_strict_table():
    err = then_refused(after_first_trick(), ClaimSawa(1), "false_sawa")
    assert "team B" in err.message


def test_sawa_out_of_turn_is_refused():
    then_refused(after_first_trick(), ClaimSawa(2), "not_your_turn")


def test_an_invalid_sawa_is_stored_at_a_recorded_table():
    state = when(after_first_trick("recorded"), ClaimSawa(1))
    assert state.sawa == (1, False)
    assert [(o[0], o[1], o[2]) for o in state.offences] == [(5, 1, "false_sawa")]   # bid 0, plays 1-4, claim 5
    assert state.phase == "review"


def test_qayd_on_a_false_sawa_is_proven():
    state = when(after_first_trick("recorded"), ClaimSawa(1), CallQayd(0, 5))
    assert state.result.qayd.proven
    assert state.result.qayd.rule == "false_sawa"
    assert state.result.game_points == (26, 0)      # Sun deal value 26 x 1, no projects


def test_qayd_on_a_valid_sawa_is_unfounded():
    state = when(after_first_trick("recorded"), PlayCard(1, card("7S")), ClaimSawa(2), CallQayd(1, 6))
    assert not state.result.qayd.proven
    assert state.result.game_points == (26, 0)      # the accusing team B loses the deal


def test_a_valid_sawa_before_the_first_card_is_a_kaboot():
    # Seat 0 holds all eight spades in a Sun: it wins every trick. 130 points, all 8 tricks: Kaboot 44 (§6.3).
    hands = ["AS KS QS JS TS 9S 8S 7S", "AH KH QH JH TH 9H 8H 7H",
             "AD KD QD JD TD 9D 8D 7D", "AC KC QC JC TC 9C 8C 7C"]
    state = given_deal(dealer=3, hands=hands, faceup="7S", receiver=0)
    state = when(state, Bid(0, "sun"), ClaimSawa(0))
    assert state.points == (130, 0)
    assert state.result.kaboot
    assert state.result.game_points == (44, 0)
