"""Views: a seat sees its own hand and the public table; a spectator sees hands only by policy."""

import msgspec

from domain.baloot.events import Bid, Declare, Double, PlayCard
from domain.baloot.views import view
from tests.engine.given import card, cards, given_deal, when

HANDS = [
    "AC 7C JS AS TS KS 8S 9S",
    "7S AH KH QH AD KD QD JD",
    "QS TH JH 9H TD 9D 8D 7D",
    "KC QC JC TC 9C 8C 8H 7H",
]


def bought():
    state = given_deal(dealer=3, hands=HANDS, faceup="9S", receiver=0)
    return when(state, Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"), Bid(0, "confirm"),
                Double(1, "pass"), Double(3, "pass"))


def test_a_seat_sees_its_own_hand_and_no_other():
    v = view(bought(), 1)
    assert set(v.hand) == set(HANDS[1].split())
    assert v.hands is None
    encoded = msgspec.json.encode(v).decode()
    for other in (0, 2, 3):
        for c in HANDS[other].split():
            if c != "9S":                       # the face-up card is public
                assert f'"{c}"' not in encoded


def test_legal_actions_are_listed_only_for_the_seat_to_play():
    state = bought()
    assert view(state, 0).legal_actions and view(state, 1).legal_actions == []
    assert view(state, 0).may_claim_sawa and not view(state, 1).may_claim_sawa


def test_a_declaration_shows_its_kind_at_once_and_its_cards_after_trick_one():
    state = bought()
    state = when(state, Declare(0, (tuple(cards("9S TS JS")),)))
    seen = view(state, 1).declarations
    assert seen[0].kinds == ["sira"] and seen[0].cards is None
    state = when(state, PlayCard(0, card("AC")), PlayCard(1, card("7S")), PlayCard(2, card("QS")),
                 PlayCard(3, card("KC")))
    assert sorted(view(state, 1).declarations[0].cards[0]) == sorted(["9S", "TS", "JS"])


def test_a_spectator_sees_no_hands_by_default():
    v = view(bought(), None)
    assert v.hand is None and v.hands is None and v.legal_actions == []
    assert sorted(view(bought(), None, hands="always").hands[3]) == sorted(HANDS[3].split())


def test_the_hands_policy_decides_what_a_spectator_sees_of_an_ended_deal():
    ended = msgspec.structs.replace(bought(), phase="scored")
    assert view(ended, None, hands="never").hands is None
    assert view(ended, None, hands="after_deal").hands is not None
    assert view(ended, None, hands="always").hands is not None
    assert view(bought(), None, hands="after_deal").hands is None       # not before the deal ends
    assert view(ended, 1, hands="never").hands is not None              # the players saw the cards laid open


def test_the_view_says_who_wins_the_trick_on_the_table_and_who_took_each_trick():
    state = bought()                                                     # Hokum, spades trump; seat 0 leads
    assert view(state, 1).winning is None                                 # nothing on the table yet
    state = when(state, PlayCard(0, card("AC")))
    assert view(state, 1).winning == 0
    state = when(state, PlayCard(1, card("7S")))                          # no club: the lowest trump wins it
    assert view(state, 3).winning == 1
    state = when(state, PlayCard(2, card("QS")))                          # over-trumped (Q above 7 in trump)
    assert view(state, 0).winning == 2
    state = when(state, PlayCard(3, card("KC")))
    seen = view(state, 0)
    assert seen.winning is None and seen.trick == []
    assert [(t.leader, t.winner) for t in seen.tricks] == [(0, 2)]
