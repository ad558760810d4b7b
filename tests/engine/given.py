"""Given/when/then helpers for the deal decider: hands in notation, decks built from hands.

    state = given_deal(dealer=3, hands=["7S 8S ...", ...], faceup="AS", receiver=0)
    state = when(state, Bid(0, "hokum"), Bid(1, "pass"), ...)
    then_refused(state, PlayCard(1, card("TS")), "revoke")
    state = play_out(state)          # the rest of the deal, each seat its lowest legal card
"""

from __future__ import annotations

import pytest

from domain.baloot import deal as deal_mod
from domain.baloot.cards import KING, QUEEN, cards_of, parse_card, parse_hand
from domain.baloot.deal import INITIAL, speaking_order
from domain.baloot.events import PlayCard, StartDeal
from domain.errors import DomainError
from domain.baloot.profiles import SAUDI, profile_named


def card(text: str) -> int:
    return parse_card(text)


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def make_deck(dealer: int, hands: list[str], faceup: str, receiver: int) -> tuple[int, ...]:
    """The deck order that deals ``hands`` (8 cards each, seat 0..3) per §2.

    Each seat's first five listed cards are its first five dealt; ``receiver`` (the buyer, or the Ashkal
    caller's partner) holds ``faceup`` among its eight.
    """
    fu = parse_card(faceup)
    lists = []
    for seat, text in enumerate(hands):
        cs = cards(text)
        if seat == receiver:
            assert fu in cs, f"the receiver seat {receiver} must hold the face-up {faceup}"
            cs.remove(fu)
            assert len(cs) == 7
        else:
            assert len(cs) == 8, f"seat {seat} needs 8 cards, got {len(cs)}"
        lists.append(cs)
    order = speaking_order(dealer)
    deck = [None] * 32
    for i, seat in enumerate(order):
        deck[3 * i:3 * i + 3] = lists[seat][:3]
        deck[12 + 2 * i:14 + 2 * i] = lists[seat][3:5]
    deck[20] = fu
    pos = 21
    for seat in order:
        rest = lists[seat][5:]
        deck[pos:pos + len(rest)] = rest
        pos += len(rest)
    assert sorted(deck) == list(range(32)), "the hands must hold the 32 cards exactly once"
    return tuple(deck)


def given_deal(dealer: int = 3, hands: list[str] | None = None, faceup: str | None = None,
               receiver: int | None = None, profile=SAUDI, table_mode: str = "strict",
               scores_before=(0, 0), deck=None):
    """The state right after ``deal_started``."""
    if isinstance(profile, str):
        profile = profile_named(profile)
    if deck is None:
        deck = make_deck(dealer, hands, faceup, receiver)
    return when(INITIAL, StartDeal(dealer=dealer, profile=profile, table_mode=table_mode, scores_before=scores_before,
                                   deck=deck))


def when(state, *commands):
    """Apply ``commands`` in order (each must be accepted); returns the new state."""
    for cmd in commands:
        state, _ = deal_mod.step(state, cmd)
    return state


def play_out(state, until_trick: int = 8, baloot: bool = False):
    """Play on, each seat its lowest legal card, while the deal is in play and fewer than ``until_trick``
    tricks are done. With ``baloot`` the second of K/Q of trump is played announcing Baloot (بلوت)."""
    while state.phase == "playing" and state.trick_no < until_trick:
        seat = state.turn
        c = cards_of(deal_mod.play_mask(state, seat))[0]
        announce = False
        if baloot:
            pair = {state.trump * 8 + KING, state.trump * 8 + QUEEN}
            announce = c in pair and bool(state.played[seat] & sum(1 << x for x in pair - {c}))
        state = when(state, PlayCard(seat, c, announce))
    return state


def events_of(state, cmd) -> list:
    return deal_mod.decide(state, cmd)


def then_refused(state, cmd, rule: str) -> DomainError:
    """``cmd`` is refused naming ``rule``, and nothing changes."""
    with pytest.raises(DomainError) as info:
        deal_mod.decide(state, cmd)
    assert info.value.rule == rule, f"expected rule {rule!r}, got {info.value.rule!r}: {info.value.message}"
    return info.value


def hand_of(state, seat: int) -> set[str]:
    from domain.baloot.cards import card_name
    return {card_name(c) for c in cards_of(state.hands[seat])}


def legal_cards(state, seat: int) -> set[str]:
    from domain.baloot.cards import card_name
    return {card_name(c) for c in cards_of(deal_mod.play_mask(state, seat))}


def mask(text: str) -> int:
    return parse_hand(text)
