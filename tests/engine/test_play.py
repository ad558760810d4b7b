"""Play (§5): who leads, following suit, trumping and overtrumping, closed games, trick winners, totals."""

import msgspec

from domain.baloot.events import Bid, Double, PlayCard
from domain.baloot.profiles import SAUDI
from domain.baloot.tricks import legal_plays
from tests.engine.given import card, given_deal, legal_cards, mask, play_out, then_refused, when

SPADES = 0

# Hokum ♠ (face-up 8♠, bought by seat 0). Trump order J 9 A T K Q 8 7.
TRUMP_LEAD = [
    "TS AS 8S AH KH QH AD KD",      # seat 0
    "7S KS JH TH 9H JD TD 9D",      # seat 1: K and 7 of trump, both below the 10
    "9S QS 8H 7H QD 8D 7D AC",      # seat 2: 9 (beats T and A) and Q of trump
    "JS KC QC JC TC 9C 8C 7C",      # seat 3: void in hearts and diamonds, one trump
]

# Hokum ♠ (face-up 8♠, bought by seat 0); seats 1 and 2 are void in hearts.
RUFF = [
    "8S AH KH QH AD KD QD JD",      # seat 0
    "QS TS AC KC QC JC TC 9C",      # seat 1: two trumps, no heart
    "JS 7S TD 9D 8D 7D 8C 7C",      # seat 2: J (beats Q) and 7 of trump, no heart
    "9S AS KS JH TH 9H 8H 7H",      # seat 3
]

# As RUFF, but seat 2's trumps (8, 7) cannot beat the Q.
UNDER = [
    "JS AH KH QH AD KD QD JD",
    "QS TS AC KC QC JC TC 9C",
    "8S 7S TD 9D 8D 7D 8C 7C",
    "9S AS KS JH TH 9H 8H 7H",
]


def hokum_seat_0(hands, faceup, profile=SAUDI, closed=False, table_mode="strict"):
    """Seat 0 buys Hokum in the face-up suit; dealer 3, so seat 0 also leads. Doubled closed if asked."""
    state = given_deal(dealer=3, hands=hands, faceup=faceup, receiver=0, profile=profile, table_mode=table_mode)
    state = when(state, Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"), Bid(0, "confirm"))
    if closed:
        return when(state, Double(1, "double", closed=True), Double(0, "pass"), Double(2, "pass"))
    return when(state, Double(1, "pass"), Double(3, "pass"))


def sun_seat_0(hands, faceup):
    state = given_deal(dealer=3, hands=hands, faceup=faceup, receiver=0)
    return when(state, Bid(0, "sun"))


def play(state, *pairs):
    """``play(state, (0, "AH"), (1, "9H"))``: each seat plays a card."""
    return when(state, *(PlayCard(seat, card(name)) for seat, name in pairs))


# ---------------------------------------------------------------- who leads


def test_dealer_plus_one_leads_the_first_trick_not_the_buyer():
    state = given_deal(dealer=1, deck=tuple(range(32)))      # order 2, 3, 0, 1
    state = when(state, Bid(2, "pass"), Bid(3, "hokum"), Bid(0, "pass"), Bid(1, "pass"), Bid(3, "confirm"),
                 Double(2, "pass"), Double(0, "pass"))
    assert state.leader == 2 and state.turn == 2
    then_refused(state, PlayCard(3, state.deck[0]), "not_your_turn")


def test_the_trick_winner_leads_the_next_trick():
    state = hokum_seat_0(TRUMP_LEAD, "8S")
    state = play(state, (0, "AH"), (1, "9H"), (2, "7H"), (3, "JS"))   # seat 3 trumps with J♠
    assert state.leader == 3 and state.turn == 3
    assert state.points == (0, 31)          # A♥ 11 + 9♥ 0 + 7♥ 0 + J♠ (trump) 20


# ---------------------------------------------------------------- following suit


def test_a_player_holding_the_led_suit_must_follow():
    state = play(hokum_seat_0(TRUMP_LEAD, "8S"), (0, "AH"))
    assert legal_cards(state, 1) == {"JH", "TH", "9H"}


def test_revoke_is_refused_naming_the_cards_held():
    state = play(hokum_seat_0(TRUMP_LEAD, "8S"), (0, "AH"))
    err = then_refused(state, PlayCard(1, card("JD")), "revoke")
    for label in ("9♥", "10♥", "J♥"):
        assert label in err.message
    assert "seat 1" in err.message


def test_sun_a_void_player_may_play_anything():
    state = play(sun_seat_0(TRUMP_LEAD, "8S"), (0, "AH"), (1, "9H"), (2, "7H"))
    assert legal_cards(state, 3) == set(TRUMP_LEAD[3].split())


def test_card_not_held_is_refused():
    err = then_refused(hokum_seat_0(TRUMP_LEAD, "8S"), PlayCard(0, card("JS")), "card_not_held")
    assert "J♠" in err.message


# ---------------------------------------------------------------- Hokum: trump led


def test_trump_led_must_beat_the_highest_trump_if_able():
    state = play(hokum_seat_0(TRUMP_LEAD, "8S"), (0, "8S"))
    assert legal_cards(state, 1) == {"KS"}                  # K beats 8; 7 does not
    then_refused(state, PlayCard(1, card("7S")), "must_overtrump")


def test_trump_led_any_trump_when_none_can_beat():
    state = play(hokum_seat_0(TRUMP_LEAD, "8S"), (0, "TS"))
    assert legal_cards(state, 1) == {"KS", "7S"}            # neither beats the 10


def test_trump_led_partner_winning_exempts_by_default():
    state = play(hokum_seat_0(TRUMP_LEAD, "8S"), (0, "TS"), (1, "7S"))
    assert legal_cards(state, 2) == {"9S", "QS"}            # partner's 10 wins: Q need not beat it


def fourth_seat_or_ace():
    return msgspec.structs.replace(SAUDI, partner_winning_exemption="fourth_seat_or_ace")


def test_variant_third_seat_must_beat_partner_who_did_not_lead_an_ace():
    state = play(hokum_seat_0(TRUMP_LEAD, "8S", profile=fourth_seat_or_ace()), (0, "TS"), (1, "7S"))
    assert legal_cards(state, 2) == {"9S"}
    then_refused(state, PlayCard(2, card("QS")), "must_overtrump")


def test_variant_third_seat_exempt_when_partner_led_an_ace():
    state = play(hokum_seat_0(TRUMP_LEAD, "8S", profile=fourth_seat_or_ace()), (0, "AS"), (1, "7S"))
    assert legal_cards(state, 2) == {"9S", "QS"}


def test_variant_fourth_seat_is_exempt_when_partner_wins():
    # Trick 8S (lead), KS (winning, partner of the 4th seat), 7S; 4th seat holds 9S and QS.
    trick = (card("8S"), card("KS"), card("7S"))
    legal = legal_plays(mask("9S QS 7H"), trick, SPADES, False, "fourth_seat_or_ace", True)
    assert legal == mask("9S QS")


def test_trump_led_and_void_in_trump_may_play_anything():
    assert legal_plays(mask("AH KC"), (card("8S"),), SPADES) == mask("AH KC")


# ---------------------------------------------------------------- Hokum: non-trump led, void


def test_void_in_led_suit_must_trump():
    state = play(hokum_seat_0(RUFF, "8S"), (0, "AH"))
    assert legal_cards(state, 1) == {"QS", "TS"}
    err = then_refused(state, PlayCard(1, card("AC")), "must_trump")
    assert "seat 1" in err.message


def test_void_with_partner_winning_may_play_anything():
    state = play(hokum_seat_0(TRUMP_LEAD, "8S"), (0, "KD"), (1, "TD"), (2, "7D"))   # seat 1's 10♦ wins
    assert legal_cards(state, 3) == set(TRUMP_LEAD[3].split())


def test_variant_void_third_seat_must_trump_when_partner_led_no_ace():
    # Partner's K♦ wins but is not an Ace: under fourth_seat_or_ace the third seat is not exempt.
    trick = (card("KD"), card("7D"))
    legal = legal_plays(mask("JS 7S AC"), trick, SPADES, False, "fourth_seat_or_ace", True)
    assert legal == mask("JS 7S")


def test_variant_void_third_seat_exempt_when_partner_led_an_ace():
    trick = (card("AD"), card("7D"))
    legal = legal_plays(mask("JS 7S AC"), trick, SPADES, False, "fourth_seat_or_ace", True)
    assert legal == mask("JS 7S AC")


def test_opponent_trumped_must_overtrump_if_able():
    state = play(hokum_seat_0(RUFF, "8S"), (0, "AH"), (1, "QS"))
    assert legal_cards(state, 2) == {"JS"}
    then_refused(state, PlayCard(2, card("7S")), "must_overtrump")


def test_opponent_trumped_and_cannot_overtrump_must_still_trump():
    state = play(hokum_seat_0(UNDER, "JS"), (0, "AH"), (1, "QS"))
    assert legal_cards(state, 2) == {"8S", "7S"}
    then_refused(state, PlayCard(2, card("TD")), "must_trump")


def test_undertrump_not_required_allows_a_discard():
    profile = msgspec.structs.replace(SAUDI, undertrump_required=False)
    state = play(hokum_seat_0(UNDER, "JS", profile=profile), (0, "AH"), (1, "QS"))
    assert legal_cards(state, 2) == set(UNDER[2].split())


# ---------------------------------------------------------------- closed game


def test_closed_game_refuses_a_trump_lead_while_holding_a_non_trump():
    state = hokum_seat_0(RUFF, "8S", closed=True)
    assert state.contract.closed
    then_refused(state, PlayCard(0, card("8S")), "closed_trump_lead")
    assert "8S" not in legal_cards(state, 0)


def test_closed_game_allows_a_trump_lead_with_only_trumps_left():
    assert legal_plays(mask("8S 9S"), (), SPADES, True) == mask("8S 9S")


def test_open_game_allows_a_trump_lead():
    state = hokum_seat_0(RUFF, "8S")
    assert "8S" in legal_cards(state, 0)


# ---------------------------------------------------------------- totals


def test_a_hokum_deal_holds_162_card_points():
    # 152 card points (J 20 + 9 14 + A 11 + T 10 + K 4 + Q 3 in trump; 4 x 30 in the others) + 10 last trick.
    state = play_out(hokum_seat_0(TRUMP_LEAD, "8S"))
    assert sum(state.points) == 162
    assert sum(state.tricks) == 8


def test_a_sun_deal_holds_130_card_points():
    # 4 suits x (A 11 + T 10 + K 4 + Q 3 + J 2) = 120, + 10 for the last trick.
    state = play_out(sun_seat_0(TRUMP_LEAD, "8S"))
    assert sum(state.points) == 130


def test_the_last_trick_adds_ten():
    state = play_out(hokum_seat_0(TRUMP_LEAD, "8S"))
    leader, last = state.history[-1]
    before_last = play_out(hokum_seat_0(TRUMP_LEAD, "8S"), until_trick=7)
    team = (leader + _winner_pos(last)) & 1
    gained = state.points[team] - before_last.points[team]
    assert gained == _hokum_points(last) + 10


# Hand-made Hokum ♠ tables (§1) for the last-trick check, independent of the engine's tricks module.
_TRUMP_ORDER = "78QKTA9J"
_PLAIN_ORDER = "789JQKTA"
_TRUMP_PTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3}
_PLAIN_PTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}


def _name(c):
    return "789TJQKA"[c & 7] + "SHDC"[c >> 3]


def _hokum_points(trick):
    return sum((_TRUMP_PTS if _name(c)[1] == "S" else _PLAIN_PTS).get(_name(c)[0], 0) for c in trick)


def _winner_pos(trick):
    names = [_name(c) for c in trick]
    led = names[0][1]

    def key(n):
        if n[1] == "S":
            return 100 + _TRUMP_ORDER.index(n[0])
        return _PLAIN_ORDER.index(n[0]) if n[1] == led else -1
    return max(range(4), key=lambda i: key(names[i]))
