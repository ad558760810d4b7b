"""Projects (§6.1, §6.2): when they are declared, which groups count, their values, which team scores."""

import pytest

from domain.baloot.events import Bid, Declare, Double, PlayCard
from domain.errors import DomainError
from domain.baloot.projects import compare, evaluate
from tests.engine.given import card, cards, given_deal, play_out, then_refused, when

ORDER = (0, 1, 2, 3)      # speaking order with dealer 3

# Hokum ♠ (face-up 7♠, bought by seat 0).
# Seat 0: sira 7-8-9♣ and fifty J-Q-K-A♦; seat 1: fifty 7-8-9-T♥; seats 2 and 3 hold no project.
HANDS = [
    "7C 8C 9C JD QD KD AD 7S",
    "7H 8H 9H TH 8S 9S TC JC",
    "TS QS AS JH KH 7D 9D QC",
    "JS KS QH AH 8D TD KC AC",
]
SIRA_CLUBS = ("7C", "8C", "9C")
FIFTY_DIAMONDS = ("JD", "QD", "KD", "AD")
FIFTY_HEARTS = ("7H", "8H", "9H", "TH")


def group(*names):
    return tuple(card(n) for n in names)


def hokum_deal():
    state = given_deal(dealer=3, hands=HANDS, faceup="7S", receiver=0)
    return when(state, Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"), Bid(0, "confirm"),
                Double(1, "pass"), Double(3, "pass"))


def value(names, sun):
    return evaluate(0, tuple(cards(names)), "saudi", sun).value


def project(seat, names, sun=False):
    return evaluate(seat, tuple(cards(names)), "saudi", sun)


# ---------------------------------------------------------------- when to declare


def test_declare_right_before_the_first_card_is_accepted():
    state = when(hokum_deal(), Declare(0, (group(*SIRA_CLUBS),)))
    assert state.declared == ((0, (group(*SIRA_CLUBS),)),)
    assert state.turn == 0                  # declaring is not playing


def test_the_second_seat_declares_at_its_own_turn():
    state = when(hokum_deal(), PlayCard(0, card("JD")), Declare(1, (group(*FIFTY_HEARTS),)))
    assert (1, (group(*FIFTY_HEARTS),)) in state.declared


def test_declaring_after_the_first_card_is_refused():
    state = when(hokum_deal(), PlayCard(0, card("AD")))
    then_refused(state, Declare(0, (group(*SIRA_CLUBS),)), "declare_late")


def test_declaring_in_trick_two_is_refused():
    state = when(hokum_deal(), PlayCard(0, card("AD")), PlayCard(1, card("8S")), PlayCard(2, card("7D")),
                 PlayCard(3, card("8D")))     # seat 1 trumps the A♦ and leads trick 2
    assert state.trick_no == 1 and state.turn == 1
    then_refused(state, Declare(1, (group(*FIFTY_HEARTS),)), "declare_late")


def test_declaring_twice_is_refused():
    state = when(hokum_deal(), Declare(0, (group(*SIRA_CLUBS),)))
    then_refused(state, Declare(0, (group(*FIFTY_DIAMONDS),)), "declare_twice")


# ---------------------------------------------------------------- invalid groups


def test_declaring_cards_not_held_is_refused():
    err = then_refused(hokum_deal(), Declare(0, (group("TS", "JS", "QS"),)), "bad_project")
    assert "does not hold" in err.message


def test_a_card_serving_in_two_projects_is_refused():
    then_refused(hokum_deal(), Declare(0, (group("JD", "QD", "KD"), group("QD", "KD", "AD"))), "bad_project")


def test_a_group_that_is_not_a_sequence_is_refused():
    then_refused(hokum_deal(), Declare(0, (group("7C", "9C", "JD"),)), "bad_project")


def test_a_broken_sequence_is_refused():
    then_refused(hokum_deal(), Declare(0, (group("7C", "8C", "JD"),)), "bad_project")


@pytest.mark.parametrize("rank", ["9", "8", "7"])
def test_four_low_cards_are_no_project_in_saudi(rank):
    with pytest.raises(DomainError) as info:
        evaluate(0, tuple(cards(f"{rank}S {rank}H {rank}D {rank}C")), "saudi", False)
    assert info.value.rule == "bad_project"


# ---------------------------------------------------------------- values (§6.1)


@pytest.mark.parametrize("names, hokum, sun", [
    ("7S 8S 9S", 2, 4),                     # sira
    ("9H TH JH QH", 5, 10),                 # fifty
    ("7D 8D 9D TD JD", 10, 20),             # hundred: five in sequence
    ("7C 8C 9C TC JC QC KC AC", 10, 20),    # eight in sequence is still a hundred
    ("KS KH KD KC", 10, 20),                # four kings
    ("QS QH QD QC", 10, 20),
    ("JS JH JD JC", 10, 20),
    ("TS TH TD TC", 10, 20),
])
def test_project_values(names, hokum, sun):
    assert value(names, sun=False) == hokum
    assert value(names, sun=True) == sun


def test_four_aces_are_a_hundred_in_hokum():
    assert project(0, "AS AH AD AC", sun=False).kind == "hundred"
    assert value("AS AH AD AC", sun=False) == 10


def test_four_aces_are_four_hundred_in_sun():
    assert project(0, "AS AH AD AC", sun=True).kind == "four_hundred"
    assert value("AS AH AD AC", sun=True) == 40


def test_sequences_follow_the_natural_order_not_the_trump_order():
    assert project(0, "9S TS JS").kind == "sira"                # 9-T-J is natural order
    with pytest.raises(DomainError):
        evaluate(0, tuple(cards("JS 9S AS")), "saudi", False)    # J-9-A is trump order only


# ---------------------------------------------------------------- comparison (§6.2)


def test_higher_class_wins():
    assert compare([project(0, "JS QS KS"), project(1, "7H 8H 9H TH")], ORDER) == 1


def test_between_same_class_sequences_the_higher_top_card_wins():
    assert compare([project(0, "7S 8S 9S"), project(1, "QH KH AH")], ORDER) == 1
    assert compare([project(0, "JD QD KD"), project(1, "7C 8C 9C")], ORDER) == 0


def test_between_two_sequence_hundreds_the_higher_top_card_wins():
    # Five to the K beats six to the Q: the rule compares top cards within a class.
    assert compare([project(0, "7S 8S 9S TS JS QS"), project(1, "9H TH JH QH KH")], ORDER) == 1


def test_sequence_hundred_beats_four_of_a_kind_hundred():
    assert compare([project(0, "KS KH KD KC"), project(1, "7D 8D 9D TD JD")], ORDER) == 1


def test_sequence_hundred_beats_four_aces_in_hokum():
    assert compare([project(0, "AS AH AD AC"), project(1, "7D 8D 9D TD JD")], ORDER) == 1


def test_four_hundred_beats_a_sequence_hundred_in_sun():
    assert compare([project(0, "AS AH AD AC", sun=True), project(1, "7D 8D 9D TD JD", sun=True)], ORDER) == 0


@pytest.mark.parametrize("low, high", [("K", "A"), ("Q", "K"), ("J", "Q"), ("T", "J")])
def test_four_of_a_kind_ranks_a_k_q_j_t(low, high):
    fours = [project(0, f"{low}S {low}H {low}D {low}C"), project(1, f"{high}S {high}H {high}D {high}C")]
    assert compare(fours, ORDER) == 1


def test_full_tie_goes_to_the_earlier_speaker():
    tied = [project(2, "7S 8S 9S"), project(1, "7H 8H 9H")]
    assert compare(tied, (0, 1, 2, 3)) == 1          # dealer 3: seat 1 speaks before seat 2
    assert compare(tied, (2, 3, 0, 1)) == 0          # dealer 1: seat 2 speaks first


# ---------------------------------------------------------------- which team scores, through a deal


def test_winning_team_scores_all_its_projects():
    # A: fifty to the A (5) + sira (2); B: fifty to the 10. A's best beats B's best: A scores 7, B none.
    state = when(hokum_deal(), Declare(0, (group(*SIRA_CLUBS), group(*FIFTY_DIAMONDS))), PlayCard(0, card("7C")),
                 Declare(1, (group(*FIFTY_HEARTS),)))
    result = play_out(state).result
    assert result.project_gp == (7, 0)
    assert {p.seat for p in result.projects} == {0}
    assert sorted(p.value for p in result.projects) == [2, 5]


def test_losing_team_scores_none_of_its_projects():
    # A declares only its sira (2); B's fifty (5) wins the comparison.
    state = when(hokum_deal(), Declare(0, (group(*SIRA_CLUBS),)), PlayCard(0, card("7C")),
                 Declare(1, (group(*FIFTY_HEARTS),)))
    result = play_out(state).result
    assert result.project_gp == (0, 5)
    assert [p.seat for p in result.projects] == [1]


def test_an_undeclared_project_scores_nothing():
    result = play_out(hokum_deal()).result          # seats 0 and 1 hold projects but never declare
    assert result.project_gp == (0, 0)
    assert result.projects == ()


def test_a_lone_declaration_scores():
    state = when(hokum_deal(), Declare(0, (group(*SIRA_CLUBS),)))
    result = play_out(state).result
    assert result.project_gp == (2, 0)


def test_a_sira_is_worth_four_in_a_played_sun():
    state = given_deal(dealer=3, hands=HANDS, faceup="7S", receiver=0)
    state = when(state, Bid(0, "sun"), Declare(0, (group(*SIRA_CLUBS),)))
    assert play_out(state).result.project_gp == (4, 0)
