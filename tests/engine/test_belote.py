"""French Belote profiles (§9) through the same engine: trump only, card-point scoring, declarations."""

import pytest

from domain.baloot.deal import legal_actions
from domain.baloot.events import Bid, Contract, Declare, PlayCard
from domain.errors import DomainError
from domain.baloot.profiles import profile_named
from domain.baloot.projects import compare, evaluate
from domain.baloot.scoring import score_deal
from domain.baloot.tricks import legal_plays
from tests.engine.given import card, cards, given_deal, legal_cards, mask, play_out, then_refused, when

CLASSIC = profile_named("belote_classic")
DECLARATIONS = profile_named("belote_declarations")
DECK = tuple(range(32))          # face-up deck[20] = J♦
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
TAKERS_A = Contract("hokum", SPADES, 0)

# Seat 0 holds the tierce 7-8-9♣ and takes ♠ on the face-up 7♠.
HANDS = [
    "7C 8C 9C JD QD KS AD 7S",
    "7H 8H 9H TH 8S 9S TC JC",
    "TS QS AS JH KH 7D 9D QC",
    "JS KD QH AH 8D TD KC AC",
]


def deal(profile=CLASSIC, dealer=3):
    return given_deal(dealer=dealer, deck=DECK, profile=profile)


def belote_value(names):
    return evaluate(0, tuple(cards(names)), "belote", False).value


# ---------------------------------------------------------------- bidding


@pytest.mark.parametrize("name", ["belote_classic", "belote_declarations"])
def test_no_sun(name):
    err = then_refused(deal(profile_named(name)), Bid(0, "sun"), "no_sun")
    assert name in err.message


def test_no_ashkal():
    state = when(deal(), Bid(0, "pass"), Bid(1, "pass"))
    then_refused(state, Bid(2, "ashkal"), "no_sun")


def test_the_first_take_fixes_the_contract_with_no_doubling():
    state = when(deal(), Bid(0, "pass"), Bid(1, "hokum"))
    assert state.contract == Contract("hokum", DIAMONDS, 1)
    assert state.phase == "playing"
    assert state.turn == 0                       # dealer + 1 leads


def test_round_two_names_another_suit():
    state = when(deal(), Bid(0, "pass"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"))
    assert state.round == 2
    then_refused(state, Bid(0, "hokum", DIAMONDS), "hokum_suit")
    state = when(state, Bid(0, "wala"), Bid(1, "hokum", HEARTS))
    assert state.contract == Contract("hokum", HEARTS, 1)
    assert state.phase == "playing"


def test_no_kawesh():
    state = given_deal(dealer=3, hands=["7S 8S 9S 7H 8H AS KS QS", "9H TH JH QH KH AH JS TS",
                                        "AD KD QD JD TD 9D 8D 7D", "AC KC QC JC TC 9C 8C 7C"],
                       faceup="AS", receiver=0, profile=CLASSIC)
    then_refused(state, Bid(0, "kawesh"), "kawesh")


# ---------------------------------------------------------------- declarations


def classic_taken(profile=CLASSIC):
    state = given_deal(dealer=3, hands=HANDS, faceup="7S", receiver=0, profile=profile)
    return when(state, Bid(0, "hokum"))


def test_classic_has_no_declarations():
    then_refused(classic_taken(), Declare(0, (tuple(cards("7C 8C 9C")),)), "no_projects")


def test_declarations_profile_accepts_a_tierce():
    state = when(classic_taken(DECLARATIONS), Declare(0, (tuple(cards("7C 8C 9C")),)))
    result = play_out(state).result
    assert result.project_gp == (20, 0)


@pytest.mark.parametrize("names, points", [
    ("7S 8S 9S", 20),                    # tierce
    ("9H TH JH QH", 50),                 # four in sequence
    ("7D 8D 9D TD JD", 100),             # five or more
    ("JS JH JD JC", 200),
    ("9S 9H 9D 9C", 150),
    ("AS AH AD AC", 100),
    ("TS TH TD TC", 100),
    ("KS KH KD KC", 100),
    ("QS QH QD QC", 100),
])
def test_declaration_values(names, points):
    assert belote_value(names) == points


@pytest.mark.parametrize("rank", ["8", "7"])
def test_four_low_cards_are_no_declaration(rank):
    with pytest.raises(DomainError) as info:
        evaluate(0, tuple(cards(f"{rank}S {rank}H {rank}D {rank}C")), "belote", False)
    assert info.value.rule == "bad_project"


# Seat 0's only declaration is four 9s (no three in sequence in any suit); it takes ♠ on the face-up 7♠.
FOUR_NINES = [
    "9S 9H 9D 9C 7S JD AC KH",
    "8S TS JS QS KS AS 7H 8H",
    "TH JH QH AH 7D 8D TD QD",
    "KD AD 7C 8C TC JC QC KC",
]


def test_four_nines_alone_are_offered_as_a_declaration():
    state = given_deal(dealer=3, hands=FOUR_NINES, faceup="7S", receiver=0, profile=DECLARATIONS)
    state = when(state, Bid(0, "hokum"))
    assert Declare(0, (tuple(cards("9S 9H 9D 9C")),)) in legal_actions(state, 0)


def test_four_nines_are_not_offered_without_declarations():
    state = given_deal(dealer=3, hands=FOUR_NINES, faceup="7S", receiver=0, profile=CLASSIC)
    state = when(state, Bid(0, "hokum"))
    assert not any(isinstance(a, Declare) for a in legal_actions(state, 0))


def belote(seat, names):
    return evaluate(seat, tuple(cards(names)), "belote", False)


def test_declarations_of_equal_value_compare_by_top_card_not_length():
    # Two hundreds (§6.2 as in the rules file): six cards to the Q lose to five cards to the K.
    assert compare([belote(0, "7S 8S 9S TS JS QS"), belote(1, "9H TH JH QH KH")], (0, 1, 2, 3)) == 1


def test_a_sequence_hundred_beats_four_aces():
    assert compare([belote(0, "AS AH AD AC"), belote(1, "7D 8D 9D TD JD")], (0, 1, 2, 3)) == 1


def test_equal_declarations_go_to_the_earlier_speaker():
    assert compare([belote(1, "7H 8H 9H"), belote(2, "7D 8D 9D")], (1, 2, 3, 0)) == 1
    assert compare([belote(1, "7H 8H 9H"), belote(2, "7D 8D 9D")], (2, 3, 0, 1)) == 0


def test_four_jacks_beat_four_nines():
    fours = [evaluate(0, tuple(cards("9S 9H 9D 9C")), "belote", False),
             evaluate(1, tuple(cards("JS JH JD JC")), "belote", False)]
    assert compare(fours, (0, 1, 2, 3)) == 1


# ---------------------------------------------------------------- scoring in card points


def test_takers_who_beat_the_defenders_keep_their_points():
    result = score_deal(CLASSIC, TAKERS_A, (90, 72), (5, 3), [], None, (0, 0))
    assert result.game_points == (90, 72)
    assert not result.failed


def test_takers_who_do_not_beat_the_defenders_give_them_162():
    result = score_deal(CLASSIC, TAKERS_A, (70, 92), (3, 5), [], None, (0, 0))
    assert result.failed
    assert result.game_points == (0, 162)


def test_belote_rebelote_adds_20():
    result = score_deal(CLASSIC, TAKERS_A, (90, 72), (5, 3), [], None, (1, 0))
    assert result.game_points == (110, 72)


def test_belote_stays_with_its_holder_when_the_takers_fail():
    # 60 + Belote 20 = 80 against 102: the takers fail; defenders 162, Belote 20 stays with A.
    result = score_deal(CLASSIC, TAKERS_A, (60, 102), (3, 5), [], None, (1, 0))
    assert result.failed
    assert result.game_points == (20, 162)


def test_failed_contract_gives_the_defenders_162_plus_declarations():
    # B's tierce (20) is the only declaration; 60 against 102 + 20: B takes 162 + 20.
    projects = [evaluate(1, tuple(cards("7H 8H 9H")), "belote", False)]
    result = score_deal(DECLARATIONS, TAKERS_A, (60, 102), (3, 5), projects, 1, (0, 0))
    assert result.game_points == (0, 182)


def test_capot_is_252():
    result = score_deal(CLASSIC, TAKERS_A, (162, 0), (8, 0), [], None, (0, 0))
    assert result.kaboot
    assert result.game_points == (252, 0)


def test_takers_capot_leaves_the_defenders_their_best_declaration():
    # §9: declarations are scored as without the capot. B's tierce is the only one: A 252, B 20.
    projects = [evaluate(1, tuple(cards("7H 8H 9H")), "belote", False)]
    result = score_deal(DECLARATIONS, TAKERS_A, (162, 0), (8, 0), projects, 1, (0, 0))
    assert result.kaboot and not result.failed
    assert result.game_points == (252, 20)


def test_takers_capot_adds_their_own_best_declaration():
    projects = [evaluate(0, tuple(cards("7C 8C 9C")), "belote", False)]
    result = score_deal(DECLARATIONS, TAKERS_A, (162, 0), (8, 0), projects, 0, (0, 0))
    assert result.game_points == (272, 0)


def test_defenders_capot_takes_the_takers_best_declaration_too():
    # A failed contract gives the defenders every declaration: 252 + A's hundred 100 = 352, more than the
    # same failure without a capot (162 + 100 = 262).
    projects = [evaluate(0, tuple(cards("7D 8D 9D TD JD")), "belote", False)]
    result = score_deal(DECLARATIONS, TAKERS_A, (0, 162), (0, 8), projects, 0, (0, 0))
    assert result.kaboot and result.failed
    assert result.game_points == (0, 352)


def test_capot_belote_stays_with_its_holder():
    result = score_deal(CLASSIC, TAKERS_A, (0, 162), (0, 8), [], None, (1, 0))
    assert result.game_points == (20, 252)


def test_dispute_at_81_holds_the_takers_points():
    result = score_deal(CLASSIC, TAKERS_A, (81, 81), (4, 4), [], None, (0, 0))
    assert result.held == 81
    assert result.game_points == (0, 81)         # the defenders keep theirs; the takers' 81 wait


def test_a_played_belote_deal_holds_162_card_points():
    state = play_out(classic_taken())
    assert sum(state.result.card_points) == 162


# ---------------------------------------------------------------- play: trump led (seeds 001, 003)

# Belote ♠ taken by seat 0 on the face-up 8♠; dealer 3, so seat 0 leads. Trump order J 9 A T K Q 8 7.
TRUMP_LEAD = [
    "TS AS 8S AH KH QH AD KD",      # seat 0
    "7S KS JH TH 9H JD TD 9D",      # seat 1: K and 7 of trump, both below the 10
    "9S QS 8H 7H QD 8D 7D AC",      # seat 2: 9 (beats T and A) and Q of trump
    "JS KC QC JC TC 9C 8C 7C",      # seat 3: one trump, void in hearts and diamonds
]


def trump_lead(profile):
    state = given_deal(dealer=3, hands=TRUMP_LEAD, faceup="8S", receiver=0, profile=profile)
    return when(state, Bid(0, "hokum"))


@pytest.mark.parametrize("profile", [CLASSIC, DECLARATIONS])
def test_belote_profiles_exempt_only_a_player_void_in_the_led_suit(profile):
    assert profile.partner_winning_exemption == "void_only"


@pytest.mark.parametrize("profile", [CLASSIC, DECLARATIONS])
def test_trump_led_must_beat_the_highest_trump_even_over_the_partner(profile):
    # «عندما يُبدأ بالحكم، يجب أن تعلو على أعلى حكم إن استطعت»: partner's 10 wins, seat 2 must play the 9.
    state = when(trump_lead(profile), PlayCard(0, card("TS")), PlayCard(1, card("7S")))
    assert legal_cards(state, 2) == {"9S"}
    then_refused(state, PlayCard(2, card("QS")), "must_overtrump")


def test_trump_led_fourth_seat_must_beat_the_partner_too():
    # Trick 8♠, K♠ (winning, the fourth seat's partner), 7♠: the fourth seat holds 9♠ and Q♠.
    trick = (card("8S"), card("KS"), card("7S"))
    legal = legal_plays(mask("9S QS 7H"), trick, SPADES, False, "void_only", True)
    assert legal == mask("9S")


def test_void_with_the_partner_winning_may_still_play_anything():
    # Non-trump led, seat 3 void in diamonds and partner (seat 1) winning with the 10♦: no trump needed.
    state = when(trump_lead(CLASSIC), PlayCard(0, card("KD")), PlayCard(1, card("TD")), PlayCard(2, card("7D")))
    assert legal_cards(state, 3) == set(TRUMP_LEAD[3].split())
