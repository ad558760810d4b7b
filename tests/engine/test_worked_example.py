"""The worked trick of seed 000 (§5): Hokum ♠, player 3 leads A♣; player 2 takes 18 points."""

from domain.baloot.events import Bid, Double, PlayCard

from tests.engine.given import card, given_deal, legal_cards, when

# Players 3, 1, 2, 4 play in that order: seats 0, 1, 2, 3 with dealer 3 (player 3 leads at dealer + 1).
HANDS = [
    "AC 7C JS AS TS KS 8S 9S",      # seat 0, player 3: bought Hokum ♠ (face-up 9♠)
    "7S AH KH QH AD KD QD JD",      # seat 1, player 1: no club, one trump
    "QS TH JH 9H TD 9D 8D 7D",      # seat 2, player 2: no club, Q♠
    "KC QC JC TC 9C 8C 8H 7H",      # seat 3, player 4
]


def test_player_two_overtrumps_and_takes_eighteen_points():
    state = given_deal(dealer=3, hands=HANDS, faceup="9S", receiver=0)
    state = when(state, Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "pass"), Bid(3, "pass"), Bid(0, "confirm"),
                 Double(1, "pass"), Double(3, "pass"))
    assert state.turn == 0                       # dealer + 1 leads, whoever bought
    state = when(state, PlayCard(0, card("AC")))
    assert legal_cards(state, 1) == {"7S"}       # void in clubs: must trump
    state = when(state, PlayCard(1, card("7S")))
    assert legal_cards(state, 2) == {"QS"}       # an opponent trumped: must overtrump
    state = when(state, PlayCard(2, card("QS")))
    state = when(state, PlayCard(3, card("KC")))
    assert state.leader == 2                     # player 2 wins the trick
    assert state.points == (18, 0)               # A 11 + 7 0 + Q 3 + K 4, to team of seats 0+2 (players 3, 2)
