"""Tricks: who wins, what may be played (§5), which rule a play broke, and the exact Sawa check."""

from __future__ import annotations

from domain.baloot.cards import (
    PLAIN_POINTS, PLAIN_STRENGTH, SUIT_MASKS, TRUMP_POINTS, TRUMP_STRENGTH, ACE, card_label, cards_of,
)

NO_TRUMP = -1

# Per card (0-31) strength when following the led suit / when trump, and its points.
_PLAIN_KEY = tuple(PLAIN_STRENGTH[c & 7] for c in range(32))
_TRUMP_KEY = tuple(100 + TRUMP_STRENGTH[c & 7] for c in range(32))
_PLAIN_PTS = tuple(PLAIN_POINTS[c & 7] for c in range(32))
_TRUMP_PTS = tuple(TRUMP_POINTS[c & 7] for c in range(32))


def card_points(card: int, trump: int) -> int:
    """The points of ``card`` when ``trump`` is the trump suit (NO_TRUMP in Sun)."""
    return _TRUMP_PTS[card] if card >> 3 == trump else _PLAIN_PTS[card]


def _key(card: int, led: int, trump: int) -> int:
    suit = card >> 3
    if suit == trump:
        return _TRUMP_KEY[card]
    return _PLAIN_KEY[card] if suit == led else -1


def winning_index(trick: tuple[int, ...], trump: int) -> int:
    """The position (0-3) in ``trick`` of the card now winning it."""
    led = trick[0] >> 3
    best, best_key = 0, _key(trick[0], led, trump)
    for i in range(1, len(trick)):
        k = _key(trick[i], led, trump)
        if k > best_key:
            best, best_key = i, k
    return best


def trick_points(trick: tuple[int, ...], trump: int) -> int:
    if trump == NO_TRUMP:
        return sum(_PLAIN_PTS[c] for c in trick)
    return sum(_TRUMP_PTS[c] if c >> 3 == trump else _PLAIN_PTS[c] for c in trick)


def _higher_trumps(trumps: int, than: int) -> int:
    """The trumps in mask ``trumps`` that beat the trump ``than``."""
    key = _TRUMP_KEY[than]
    out = 0
    for c in cards_of(trumps):
        if _TRUMP_KEY[c] > key:
            out |= 1 << c
    return out


def _partner_exempt(trick: tuple[int, ...], win: int, exemption: str) -> bool:
    """Whether the seat about to play is freed from trumping because its partner wins the trick."""
    pos = len(trick)
    if win != pos - 2:  # the partner of position p is position p - 2 in the trick
        return False
    if exemption in ("always", "void_only"):
        return True
    return pos == 3 or (pos == 2 and win == 0 and trick[0] & 7 == ACE)


def legal_plays(hand: int, trick: tuple[int, ...], trump: int, closed: bool = False,
                exemption: str = "always", undertrump: bool = True) -> int:
    """The mask of the cards in ``hand`` that may be played onto ``trick`` (§5)."""
    if not trick:
        if closed and trump != NO_TRUMP:
            plain = hand & ~SUIT_MASKS[trump]
            if plain:
                return plain
        return hand
    led = trick[0] >> 3
    follow = hand & SUIT_MASKS[led]
    if trump == NO_TRUMP:
        return follow or hand
    win = winning_index(trick, trump)
    if led == trump:
        if not follow:
            return hand
        # void_only (Belote, seeds 001/003): with trump led, the partner's winning trump must be beaten too.
        if exemption != "void_only" and _partner_exempt(trick, win, exemption):
            return follow
        return _higher_trumps(follow, trick[win]) or follow
    if follow:
        return follow
    trumps = hand & SUIT_MASKS[trump]
    if not trumps or _partner_exempt(trick, win, exemption):
        return hand
    top = trick[win]
    if top >> 3 == trump:
        higher = _higher_trumps(trumps, top)
        if higher:
            return higher
        return trumps if undertrump else hand
    return trumps


def offence_of(card: int, hand: int, trick: tuple[int, ...], trump: int, closed: bool,
               exemption: str, undertrump: bool) -> tuple[str, str] | None:
    """For an illegal play, the rule broken and why, in a referee's words; None if the play is legal."""
    legal = legal_plays(hand, trick, trump, closed, exemption, undertrump)
    if legal >> card & 1:
        return None
    if not trick:
        return "closed_trump_lead", f"led trump {card_label(card)} in a closed game while holding a non-trump"
    led = trick[0] >> 3
    follow = hand & SUIT_MASKS[led]
    if follow and card >> 3 != led:
        held = ", ".join(card_label(c) for c in cards_of(follow))
        return "revoke", f"did not follow {card_label(trick[0])}'s suit while holding {held} (قاطع)"
    trumps = hand & SUIT_MASKS[trump]
    if card >> 3 != trump and trumps:
        held = ", ".join(card_label(c) for c in cards_of(legal))
        return "must_trump", f"did not trump while void in the led suit and holding {held} (ما دق بحكم)"
    held = ", ".join(card_label(c) for c in cards_of(legal))
    return "must_overtrump", f"did not beat the highest trump on the table while holding {held} (ما كبّر بحكم)"


def sawa_holds(hands: tuple[int, int, int, int], leader: int, trick: tuple[int, ...], team: int, trump: int,
               closed: bool = False, exemption: str = "always", undertrump: bool = True) -> bool:
    """Sawa (سوا), decided exactly: can ``team`` win every remaining trick whatever the opponents play?

    An AND-OR search over the open hands: the claiming team picks its best card, the opponents try every
    legal card; one trick lost by the team refutes the claim. Positions are memoised.
    """
    memo: dict = {}

    def wins_all(hands, leader, trick) -> bool:
        if len(trick) == 4:
            winner = (leader + winning_index(trick, trump)) & 3
            if winner & 1 != team:
                return False
            if not any(hands):
                return True
            return wins_all(hands, winner, ())
        key = (hands, leader, trick)
        if key in memo:
            return memo[key]
        seat = (leader + len(trick)) & 3
        legal = legal_plays(hands[seat], trick, trump, closed, exemption, undertrump)
        ours = seat & 1 == team
        result = not ours
        for card in cards_of(legal):
            after = hands[:seat] + (hands[seat] & ~(1 << card),) + hands[seat + 1:]
            if wins_all(after, leader, trick + (card,)) == ours:
                result = ours
                break
        memo[key] = result
        return result

    return wins_all(tuple(hands), leader, tuple(trick))
