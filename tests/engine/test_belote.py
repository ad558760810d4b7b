"""French Belote profiles (§9) through the same engine: trump only, card-point scoring, declarations."""

import pytest

from domain.cards import cards_of
from domain.deal import play_mask
from domain.events import Bid, Contract, Declare, DomainError, PlayCard
from domain.profiles import profile_named
from domain.projects import compare, evaluate
from domain.scoring import score_deal
from tests.engine.given import cards, given_deal, then_refused, when

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


def play_out(state):
    while state.phase == "playing":
        seat = state.turn
        state = when(state, PlayCard(seat, cards_of(play_mask(state, seat))[0]))
    return state


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


def test_dispute_at_81_holds_the_takers_points():
    result = score_deal(CLASSIC, TAKERS_A, (81, 81), (4, 4), [], None, (0, 0))
    assert result.held == 81
    assert result.game_points == (0, 81)         # the defenders keep theirs; the takers' 81 wait


def test_a_played_belote_deal_holds_162_card_points():
    state = play_out(classic_taken())
    assert sum(state.result.card_points) == 162
