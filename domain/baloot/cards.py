"""Cards as ints 0-31 and hands as 32-bit masks.

A card is ``suit * 8 + rank``; ranks run 7 8 9 T J Q K A (0-7), which is also the natural order used for
project sequences. Suits are S H D C (0-3). Following suit is one ``&`` with ``SUIT_MASKS[suit]``.
"""

from __future__ import annotations

from typing import TypeAlias

Card: TypeAlias = int
Hand: TypeAlias = int
Suit: TypeAlias = int

SUITS = "SHDC"
RANKS = "789TJQKA"
SUIT_SYMBOLS = "♠♥♦♣"
# Display names a Saudi player uses: ولد J, بنت Q, شايب K, إكة A.
ARABIC_RANKS = {"J": "ولد", "Q": "بنت", "K": "شايب", "A": "إكة"}

SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(8)

SUIT_MASKS = tuple(0xFF << (8 * s) for s in range(4))
FULL_DECK: Hand = (1 << 32) - 1

# Rank order, higher wins: Sun and non-trump suits A T K Q J 9 8 7; trump J 9 A T K Q 8 7.
PLAIN_STRENGTH = (0, 1, 2, 6, 3, 4, 5, 7)
TRUMP_STRENGTH = (0, 1, 6, 4, 7, 2, 3, 5)
# Card points (abnat, أبناط).
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)

LAST_TRICK_BONUS = 10


def card_suit(card: Card) -> Suit:
    """The suit of a card (0-3)."""
    return card >> 3


def card_rank(card: Card) -> int:
    """The rank of a card (0 = seven ... 7 = ace)."""
    return card & 7


_NAMES = tuple(RANKS[c & 7] + SUITS[c >> 3] for c in range(32))      # the views and the bots ask often
_BY_NAME = {name: c for c, name in enumerate(_NAMES)}


def parse_card(text: str) -> Card:
    """``parse_card("TS")`` -> the ten of spades. Raises ValueError on anything else."""
    card = _BY_NAME.get(text) if type(text) is str else None
    if card is None:
        raise ValueError(f"{text!r} is not a card (rank 7 8 9 T J Q K A + suit S H D C, e.g. 'TS')")
    return card


def card_name(card: Card) -> str:
    """``card_name(parse_card("TS")) == "TS"``."""
    return _NAMES[card]


def card_label(card: Card) -> str:
    """A name for people: ``10♠``, ``J♥``."""
    rank = RANKS[card & 7]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card >> 3]


def parse_suit(text: str) -> Suit:
    if len(text) != 1 or text not in SUITS:
        raise ValueError(f"{text!r} is not a suit (S H D C)")
    return SUITS.index(text)


def suit_name(suit: Suit) -> str:
    return SUITS[suit]


def mask_of(cards) -> Hand:
    """The mask of an iterable of cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: Hand) -> list[Card]:
    """The cards of a mask, in ascending order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def parse_hand(text: str) -> Hand:
    """``parse_hand("AS TS 7H")`` -> mask. Whitespace separated card names."""
    return mask_of(parse_card(t) for t in text.split())

