"""The simple levels (seed 001): ``easy`` plays its lowest legal card and bids simply; ``normal`` estimates
the trick, keeps strong trumps, trumps when needed, supports its partner, and bids and doubles sensibly."""

from __future__ import annotations

from typing import Protocol

from domain.baloot.cards import ACE, JACK, KING, NINE, PLAIN_STRENGTH, QUEEN, TEN, TRUMP_STRENGTH, parse_card, parse_suit
from domain.baloot.events import Bid, Declare, Double, PlayCard, RecordResult
from domain.baloot.tricks import NO_TRUMP, card_points, winning_index
from domain.baloot.views import DealView


class Bot(Protocol):
    level: str

    def choose(self, view: DealView):
        """One of ``view.legal_actions``."""


def _trump(view: DealView) -> int:
    c = view.contract
    return parse_suit(c.suit) if c is not None and c.type == "hokum" else NO_TRUMP


def _strength(card: int, trump: int) -> int:
    """Trick-taking rank of a card, for ordering (trumps above everything)."""
    return 100 + TRUMP_STRENGTH[card & 7] if card >> 3 == trump else PLAIN_STRENGTH[card & 7]


def _plays(view: DealView) -> list[PlayCard]:
    best: dict[int, PlayCard] = {}
    for a in view.legal_actions:
        if type(a) is PlayCard and (a.card not in best or a.baloot):
            best[a.card] = a          # announce Baloot whenever it may be announced
    return list(best.values())


def _lowest(plays: list[PlayCard], trump: int) -> PlayCard:
    return min(plays, key=lambda a: (card_points(a.card, trump), _strength(a.card, trump)))


def lowest_legal_card(view: DealView) -> PlayCard | None:
    """The cheapest card the seat may play (what a table auto-plays when a clock runs out)."""
    plays = _plays(view)
    return _lowest(plays, _trump(view)) if plays else None


class _Bot:
    """The shape every level shares: bid, double, declare, play; levels differ in how."""

    level = ""
    hokum_threshold = 8.0
    sun_threshold = 8.0

    def choose(self, view: DealView):
        actions = view.legal_actions
        first = actions[0]
        if type(first) is Bid:
            return self.bid(view)
        if type(first) is Double:
            return self.double(view, actions)
        for a in actions:
            if type(a) is Declare:
                return a
        plays = _plays(view)
        if not plays:
            return next((a for a in actions if type(a) is RecordResult), first)
        return self.play(view, plays)

    def bid(self, view: DealView):
        return _bid(view, self.hokum_threshold, self.sun_threshold)

    def double(self, view: DealView, actions):
        return next(a for a in actions if a.call == "pass")

    def play(self, view: DealView, plays: list[PlayCard]) -> PlayCard:
        return _lowest(plays, _trump(view))


class EasyBot(_Bot):
    """Lowest legal card, Hokum only with a strong trump holding, never Sun, never doubles."""

    level = "easy"
    hokum_threshold = 9.0
    sun_threshold = 99.0


def _hokum_score(hand: list[int], suit: int) -> float:
    trumps = [c & 7 for c in hand if c >> 3 == suit]
    score = {JACK: 4, NINE: 3, ACE: 2, TEN: 1.5, KING: 1, QUEEN: 1}
    s = sum(score.get(r, 0.5) for r in trumps) + max(0, len(trumps) - 2)
    s += sum(1.5 for c in hand if c >> 3 != suit and c & 7 == ACE)
    return s


def _sun_score(hand: list[int]) -> float:
    s = 0.0
    for c in hand:
        r = c & 7
        if r == ACE:
            s += 3
        elif r == TEN and (c | 7) in hand:
            s += 1.5
        elif r == KING:
            s += 0.5
    return s


def _bid(view: DealView, hokum_threshold: float, sun_threshold: float):
    hand = [parse_card(c) for c in view.hand]
    options = {(a.bid, a.suit): a for a in view.legal_actions if type(a) is Bid}
    kinds = {a.bid: a for a in view.legal_actions if type(a) is Bid}
    if "confirm" in kinds:
        faceup_suit = parse_card(view.faceup) >> 3 if view.faceup else None
        suit = next((b.suit for b in reversed(view.bids) if b.bid == "hokum"), None)
        trump = parse_suit(suit) if suit else faceup_suit
        return kinds["sun"] if "sun" in kinds and _sun_score(hand) >= sun_threshold and \
            _sun_score(hand) > _hokum_score(hand, trump) else kinds["confirm"]
    if "before_you" in kinds:
        return kinds["before_you"] if _sun_score(hand) >= sun_threshold else kinds["pass"]
    if "kawesh" in kinds:
        return kinds["kawesh"]
    if "sun" in kinds and _sun_score(hand) >= sun_threshold:
        return kinds["sun"]
    faceup = parse_card(view.faceup) if view.faceup else None
    if "ashkal" in kinds and faceup is not None and faceup & 7 == ACE and _sun_score(hand) >= sun_threshold - 3:
        return kinds["ashkal"]
    hokums = [(a, _hokum_score(hand + ([faceup] if faceup is not None and a.suit == faceup >> 3 else []),
                               a.suit)) for (bid, _), a in options.items() if bid == "hokum"]
    if hokums:
        best, score = max(hokums, key=lambda x: x[1])
        if score >= hokum_threshold:
            return best
    return kinds.get("pass") or kinds.get("wala") or view.legal_actions[0]


class NormalBot(_Bot):
    level = "normal"

    def double(self, view: DealView, actions):
        hand = [parse_card(c) for c in view.hand]
        trump = _trump(view)
        if trump == NO_TRUMP:
            strong = _sun_score(hand) >= 9
        else:
            strong = _hokum_score(hand, trump) >= 8
        call = next((a for a in actions if a.call != "pass"), None)
        if strong and call is not None and call.call == "double":
            return next((a for a in actions if a.call == "double" and not a.closed), call)
        return next(a for a in actions if a.call == "pass")

    def play(self, view: DealView, plays: list[PlayCard]) -> PlayCard:
        trump = _trump(view)
        me = view.viewer
        trick = [parse_card(p.card) for p in view.trick]
        seats = [p.seat for p in view.trick]
        if not trick:
            return self._lead(view, plays, trump)
        win = winning_index(tuple(trick), trump)
        partner_winning = seats[win] == (me + 2) & 3
        last = len(trick) == 3
        at_stake = sum(card_points(c, trump) for c in trick)
        winners = [a for a in plays if _beats(a.card, trick[win], trick[0] >> 3, trump)]
        if partner_winning:
            if last or trick[win] >> 3 == trump or trick[win] & 7 == ACE:
                # Support the partner: give points, but never a trump honour for nothing.
                givers = [a for a in plays if not (a.card >> 3 == trump and a.card & 7 in (JACK, NINE))]
                if givers:
                    return max(givers, key=lambda a: (card_points(a.card, trump), -_strength(a.card, trump)))
            return _lowest(plays, trump)
        if winners and (last or at_stake >= 10 or trick[win] >> 3 != trump):
            # Take the trick as cheaply as possible, keeping the strongest trumps for later.
            return min(winners, key=lambda a: (_strength(a.card, trump), card_points(a.card, trump)))
        return _lowest(plays, trump)

    def _lead(self, view: DealView, plays: list[PlayCard], trump: int) -> PlayCard:
        hand = [parse_card(c) for c in view.hand]
        c = view.contract
        buyer_team = c is not None and c.buyer & 1 == view.viewer & 1
        if trump != NO_TRUMP and buyer_team:
            trumps = [a for a in plays if a.card >> 3 == trump]
            if any(x >> 3 == trump and x & 7 == JACK for x in hand) and trumps:
                return max(trumps, key=lambda a: _strength(a.card, trump))   # draw trumps early as buyer
        aces = [a for a in plays if a.card >> 3 != trump and a.card & 7 == ACE]
        if aces:
            return aces[0]
        return _lowest(plays, trump)


def _beats(card: int, best: int, led: int, trump: int) -> bool:
    if card >> 3 == trump:
        return best >> 3 != trump or _strength(card, trump) > _strength(best, trump)
    return card >> 3 == led and best >> 3 == led and _strength(card, trump) > _strength(best, trump)
