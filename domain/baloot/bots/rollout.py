"""Playing a sampled deal to its end, fast, and scoring it with the engine.

Each seat plays its own (sampled) cards with the normal bot's card sense, on bit masks: lead a master card
(the best left in its suit) or, as the Hokum buyer's team holding the top trump, draw trumps; follow by
taking the trick as cheaply as possible when it is worth it, feeding points to a partner who holds it, and
otherwise throwing the cheapest card. Legality comes from the engine (``legal_plays``), the trick's winner
from ``winning_index``, the score from ``deal_result`` on a state holding the rollout's points and tricks.
"""

from __future__ import annotations

from msgspec.structs import replace

from domain.baloot.cards import (
    ACE, JACK, LAST_TRICK_BONUS, NINE, PLAIN_POINTS, PLAIN_STRENGTH, SUIT_MASKS, TRUMP_POINTS,
    TRUMP_STRENGTH,
)
from domain.baloot.dealstate import DealState
from domain.baloot.result import deal_result
from domain.baloot.play import baloot_holders  # noqa: F401  (the bots' and the benchmark's name for it)
from domain.baloot.tricks import NO_TRUMP, legal_plays, winning_index

# Per trump (0-3, or 4 for none): each card's points and trick-taking strength (trumps above everything).
_POINTS = [[TRUMP_POINTS[c & 7] if c >> 3 == t else PLAIN_POINTS[c & 7] for c in range(32)] for t in range(5)]
_STRENGTH = [[100 + TRUMP_STRENGTH[c & 7] if c >> 3 == t else PLAIN_STRENGTH[c & 7] for c in range(32)]
             for t in range(5)]
# Cards in a suit above a given card (plain order, trump order).
_ABOVE_PLAIN = [sum(1 << (c & ~7 | r) for r in range(8) if PLAIN_STRENGTH[r] > PLAIN_STRENGTH[c & 7])
                for c in range(32)]
_ABOVE_TRUMP = [sum(1 << (c & ~7 | r) for r in range(8) if TRUMP_STRENGTH[r] > TRUMP_STRENGTH[c & 7])
                for c in range(32)]


class Table:
    """The fixed facts of one decision's rollouts: trump, closed game, the profile's play switches."""

    __slots__ = ("trump", "t", "closed", "exemption", "undertrump", "buyer_team", "points", "strength")

    def __init__(self, trump: int, closed: bool, exemption: str, undertrump: bool, buyer_team: int):
        self.trump = trump
        self.t = 4 if trump == NO_TRUMP else trump
        self.closed = closed
        self.exemption = exemption
        self.undertrump = undertrump
        self.buyer_team = buyer_team
        self.points = _POINTS[self.t]
        self.strength = _STRENGTH[self.t]


# The cards of each byte of a mask (ranks), to list a hand's cards quickly.
_BYTE_RANKS = tuple(tuple(r for r in range(8) if b >> r & 1) for b in range(256))


def _cards(mask: int) -> list[int]:
    out = []
    for s in (0, 8, 16, 24):
        b = mask >> s & 0xFF
        if b:
            out.extend(s + r for r in _BYTE_RANKS[b])
    return out


def choose_card(tb: Table, hands, seat: int, trick: tuple[int, ...], win: int) -> int:
    """The card ``seat`` plays in a rollout (its legal cheapest-sensible card); ``win``: the position of the
    card winning ``trick``."""
    hand = hands[seat]
    legal = legal_plays(hand, trick, tb.trump, tb.closed, tb.exemption, tb.undertrump)
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    pts, strength, trump = tb.points, tb.strength, tb.trump
    cards = _cards(legal)
    if not trick:
        out = hands[0] | hands[1] | hands[2] | hands[3]
        if trump != NO_TRUMP and seat & 1 == tb.buyer_team:
            trumps = legal & SUIT_MASKS[trump]
            if trumps:
                top = max(_cards(trumps), key=strength.__getitem__)
                others = out & ~hand & SUIT_MASKS[trump]
                if others and not others & _ABOVE_TRUMP[top]:
                    return top                     # the master trump draws the opponents' trumps
        for c in cards:
            if c >> 3 != trump and c & 7 != JACK and not out & ~hand & _ABOVE_PLAIN[c] \
                    and pts[c] >= 10:
                return c                           # a master card with points
        return min(cards, key=lambda c: (pts[c], strength[c]))
    best = trick[win]
    pos = len(trick)
    partner_winning = win == pos - 2
    if partner_winning:
        if pos == 3 or best >> 3 == trump or best & 7 == ACE:
            givers = [c for c in cards if not (c >> 3 == trump and c & 7 in (JACK, NINE))] or cards
            return max(givers, key=lambda c: (pts[c], -strength[c]))
        return min(cards, key=lambda c: (pts[c], strength[c]))
    led = trick[0] >> 3
    bs = strength[best]
    winners = [c for c in cards if strength[c] > bs and (c >> 3 == trump or (c >> 3 == led and best >> 3 == led))]
    if winners:
        at_stake = sum(pts[c] for c in trick)
        if pos == 3 or at_stake >= 10 or best >> 3 != trump:
            return min(winners, key=lambda c: (strength[c], pts[c]))
    return min(cards, key=lambda c: (pts[c], strength[c]))


def play_out(tb: Table, hands: list[int], leader: int, trick: tuple[int, ...], trick_no: int,
             points: list[int], tricks: list[int], first: int = -1) -> None:
    """Play to the end from the position given (``hands`` and the tallies are changed in place); ``first``:
    the card the seat to play plays now (the action being evaluated)."""
    trump = tb.trump
    tpts = tb.points
    strength = tb.strength
    win = winning_index(trick, trump) if trick else 0
    while trick_no < 8:
        pos = len(trick)
        seat = (leader + pos) & 3
        if first >= 0:
            card, first = first, -1
        else:
            card = choose_card(tb, hands, seat, trick, win)
        hands[seat] &= ~(1 << card)
        if pos:
            best = trick[win]
            if strength[card] > strength[best] and (card >> 3 == trump or card >> 3 == best >> 3):
                win = pos
        trick = trick + (card,)
        if pos == 3:
            winner = (leader + win) & 3
            win = 0
            trick_no += 1
            pts = tpts[trick[0]] + tpts[trick[1]] + tpts[trick[2]] + tpts[trick[3]]
            if trick_no == 8:
                pts += LAST_TRICK_BONUS
            points[winner & 1] += pts
            tricks[winner & 1] += 1
            leader, trick = winner, ()


class Scorer:
    """``deal_result`` for the rollouts of one decision, remembered by what it depends on."""

    def __init__(self, template: DealState, team: int):
        self.template = template
        self.team = team
        self.memo: dict = {}

    def margin(self, points, tricks, baloot_seats: tuple[int, ...], declared: tuple, contract=None) -> float:
        """GP of ``team`` minus the other team's."""
        key = (points[0], points[1], tricks[0], tricks[1], baloot_seats, declared, contract)
        m = self.memo.get(key)
        if m is None:
            changes = dict(points=(points[0], points[1]), tricks=(tricks[0], tricks[1]),
                           baloot_seats=baloot_seats, declared=declared)
            if contract is not None:
                changes["contract"] = contract
            gp = deal_result(replace(self.template, **changes)).game_points
            m = self.memo[key] = gp[self.team] - gp[1 - self.team]
        return m
