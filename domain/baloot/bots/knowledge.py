"""What a seat knows about the hidden cards, from its view alone, and deals sampled consistent with it.

``Knowledge.of(view)`` reads the view: the seat's own hand, the cards played (card counting), the cards a
seat must still hold (the face-up card its taker has not played, the shown cards of declared projects), and
for every other seat the cards it cannot hold: a play that would have been illegal had the seat held card
``x`` proves that it does not (a failure to follow is a void, a failure to trump is no trump, a small trump
under a higher one on the table is no higher trump, a trump led in a closed game is nothing but trumps). The
test asks the engine's own ``legal_plays`` with the seat holding the played card and ``x``, so it follows
every profile's switches. ``sample(rng)`` deals the unknown cards to the other seats respecting all of it;
a project declared with its cards still hidden is dealt as some group of its kind.
"""

from __future__ import annotations

import random

from domain.baloot.bidding import complete_deal
from domain.baloot.cards import ACE, FULL_DECK, JACK, KING, NINE, QUEEN, TEN, cards_of, parse_card, parse_suit
from domain.baloot.events import Contract
from domain.baloot.projects import best_declaration, evaluate
from domain.baloot.tricks import NO_TRUMP, legal_plays
from domain.baloot.views import DealView

__all__ = ["Knowledge", "contract_of", "project_groups"]

UNLIKELY = 0.25       # the chance a sampled deal is kept when the buyer's hand would hardly have bought


def contract_of(view: DealView) -> Contract | None:
    c = view.contract
    if c is None:
        return None
    return Contract(c.type, parse_suit(c.suit) if c.suit else None, c.buyer, c.ashkal, c.multiplier, c.gahwa,
                    c.closed)


def _mask(names) -> int:
    m = 0
    for n in names:
        m |= 1 << parse_card(n)
    return m


class Knowledge:
    """The hidden cards as seat ``me`` may reason about them (see the module's docstring)."""

    def __init__(self, view: DealView):
        self.view = view
        self.me = me = view.viewer
        self.rules = view.rules
        self.contract = contract_of(view)
        c = self.contract
        self.trump = c.suit if c is not None and c.kind == "hokum" else NO_TRUMP
        self.hand = _mask(view.hand)
        self.sizes = list(view.hand_sizes)
        self.played_by = [0, 0, 0, 0]
        self.excluded = [0, 0, 0, 0]
        known = [0, 0, 0, 0]
        for t in view.tricks:
            self._read_trick([(p.seat, parse_card(p.card)) for p in t.cards])
        if view.trick:
            self._read_trick([(p.seat, parse_card(p.card)) for p in view.trick])
        played = self.played_by[0] | self.played_by[1] | self.played_by[2] | self.played_by[3]
        self.played = played
        if view.faceup is not None and view.faceup_taken_by is not None:
            fu = parse_card(view.faceup)
            if not played >> fu & 1:
                known[view.faceup_taken_by] |= 1 << fu
        # Declared projects: shown cards are held (until played); hidden ones are dealt as groups of their kind.
        self.declared: list[tuple[int, tuple | None, list[str]]] = []
        for d in view.declarations:
            if d.cards is not None:
                groups = tuple(tuple(sorted(parse_card(x) for x in g)) for g in d.cards)
                for g in groups:
                    for x in g:
                        if not played >> x & 1:
                            known[d.seat] |= 1 << x
                self.declared.append((d.seat, groups, d.kinds))
            elif d.seat == me:
                groups = best_declaration(me, self.hand | self.played_by[me], self.rules.projects, self._sun)
                self.declared.append((me, groups, d.kinds))
            else:
                self.declared.append((d.seat, None, d.kinds))
        known[me] = self.hand
        self.known = known
        taken = known[0] | known[1] | known[2] | known[3]
        self.pool = FULL_DECK & ~taken & ~played
        if view.phase == "bidding" and view.faceup is not None:
            self.pool &= ~(1 << parse_card(view.faceup))

    @property
    def _sun(self) -> bool:
        return self.contract is not None and self.contract.kind == "sun"

    def _read_trick(self, plays: list[tuple[int, int]]) -> None:
        p = self.rules
        closed = self.contract.closed if self.contract else False
        trump = self.trump
        trick: tuple[int, ...] = ()
        for seat, card in plays:
            if seat != self.me:
                unplayed = FULL_DECK & ~(self.played_by[0] | self.played_by[1] | self.played_by[2]
                                         | self.played_by[3]) & ~(1 << card) & ~self.hand
                excluded = 0
                for x in cards_of(unplayed & ~self.excluded[seat]):
                    hand = 1 << card | 1 << x
                    if not legal_plays(hand, trick, trump, closed, p.partner_winning_exemption,
                                       p.undertrump_required) >> card & 1:
                        excluded |= 1 << x
                self.excluded[seat] |= excluded
            self.played_by[seat] |= 1 << card
            trick = trick + (card,)

    # ------------------------------------------------------------ sampling

    def sample(self, rng: random.Random):
        """Hands for all four seats consistent with the view, and the declared groups: ``(hands, declared)``.
        Exclusions are dropped if no deal respects them (a recorded table's illegal plays can contradict
        them). The bidding weighs the deals: one where the buyer's hand would hardly have bought is kept
        only with probability ``UNLIKELY`` (else another is drawn, a few times at most)."""
        out = None
        for attempt in range(4):
            for strict in (True, True, True, True, True, True, True, True, False):
                out = self._try_sample(rng, strict)
                if out is not None:
                    break
            if out is None:
                raise ValueError("no deal is consistent with the view")   # pragma: no cover - sizes fit
            if self._likely_buyer(out[0]) or rng.random() < UNLIKELY:
                return out
        return out

    def _likely_buyer(self, hands) -> bool:
        """Whether the contract's buyer (someone else) holds what one buys with: in Hokum three trumps, or
        two with the Jack or the Nine; in Sun two Aces, or an Ace with the Ten of its suit."""
        c = self.contract
        if c is None or c.buyer == self.me or c.ashkal:
            return True
        held = hands[c.buyer] | self.played_by[c.buyer]
        if c.kind == "hokum":
            trumps = held >> (8 * c.suit) & 0xFF
            return trumps.bit_count() >= 3 or (trumps.bit_count() >= 2 and bool(trumps & (1 << JACK | 1 << NINE)))
        aces = [s for s in range(4) if held >> (8 * s + ACE) & 1]
        return len(aces) >= 2 or any(held >> (8 * s + TEN) & 1 for s in aces)

    def _try_sample(self, rng: random.Random, strict: bool) -> tuple | None:
        sizes = self.sizes
        known = list(self.known)
        pool = self.pool
        excluded = self.excluded if strict else [0, 0, 0, 0]
        declared = []
        for seat, groups, kinds in self.declared:
            if groups is None:
                avail = (pool & ~excluded[seat]) | known[seat] | self.played_by[seat]
                groups = []
                for kind in kinds:
                    options = [g for g in project_groups(kind, self.rules.projects, self._sun)
                               if all(avail >> x & 1 for x in g)]
                    if not options:
                        break
                    g = rng.choice(options)
                    groups.append(g)
                    for x in g:
                        avail &= ~(1 << x)
                        if pool >> x & 1:
                            known[seat] |= 1 << x
                            pool &= ~(1 << x)
                groups = tuple(groups)
            declared.append((seat, groups))
        need = [sizes[s] - known[s].bit_count() for s in range(4)]
        if min(need) < 0:
            return None
        cards = cards_of(pool)
        rng.shuffle(cards)
        seats = [s for s in range(4) if need[s] > 0]
        eligible = {c: [s for s in seats if not excluded[s] >> c & 1] for c in cards}
        cards.sort(key=lambda c: len(eligible[c]))
        hands = known
        for c in cards:
            options = [s for s in eligible[c] if need[s] > 0]
            if not options:
                if sum(need) == 0:
                    break
                return None
            s = options[0] if len(options) == 1 else rng.choices(options, [need[x] for x in options])[0]
            hands[s] |= 1 << c
            need[s] -= 1
        if any(need):
            return None
        return tuple(hands), tuple(declared)

    def deal_after_contract(self, rng: random.Random, receiver: int, dealer: int):
        """Bidding: full eight-card hands after a contract taken so that ``receiver`` gets the face-up card
        (the rest of the pack dealt at random among the hidden cards)."""
        fu = parse_card(self.view.faceup)
        deck = [0] * 32
        deck[20] = fu
        hands = [self.hand if s == self.me else 0 for s in range(4)]
        rest = cards_of(self.pool)
        rng.shuffle(rest)
        sizes = [5 - (s == self.me) * 5 for s in range(4)]
        for s in range(4):
            for _ in range(sizes[s]):
                hands[s] |= 1 << rest.pop()
        # ``complete_deal`` gives the receiver the face-up card and 2, the others 3, from the pack.
        deck[21:32] = rest
        return complete_deal(deck, dealer, tuple(hands), receiver)


_KIND_GROUPS: dict[tuple[str, str, bool], list[tuple[int, ...]]] = {}


def project_groups(kind: str, scheme: str, sun: bool) -> list[tuple[int, ...]]:
    """Every group of cards that forms a project of ``kind`` under ``scheme``."""
    key = (kind, scheme, sun)
    if key not in _KIND_GROUPS:
        groups = []
        for suit in range(4):
            for length in range(3, 9):
                for low in range(0, 9 - length):
                    groups.append(tuple(suit * 8 + r for r in range(low, low + length)))
        for rank in (NINE, TEN, JACK, QUEEN, KING, ACE, 0, 1):
            groups.append(tuple(s * 8 + rank for s in range(4)))
        out = []
        for g in groups:
            try:
                if evaluate(0, g, scheme, sun).kind == kind:
                    out.append(g)
            except Exception:
                continue
        _KIND_GROUPS[key] = out
    return _KIND_GROUPS[key]

