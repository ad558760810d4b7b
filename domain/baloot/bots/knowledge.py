"""What a seat knows about the hidden cards, from its view alone, and deals sampled consistent with it.

``Knowledge(view)`` reads the view: the seat's own hand, the cards played (card counting), the cards a
seat must still hold (the face-up card its taker has not played, the shown cards of declared projects), and
for every other seat the cards it cannot hold: a play that would have been illegal had the seat held card
``x`` proves that it does not (a failure to follow is a void, a failure to trump is no trump, a small trump
under a higher one on the table is no higher trump, a trump led in a closed game is nothing but trumps). The
test asks the engine's own ``legal_plays`` with the seat holding the played card and ``x``, so it follows
every profile's switches; it is sound because every play rule has the form "holding a card of some class
the trick fixes, play one of that class", so a play that is legal from the whole hand is legal from the two
cards (played and ``x``) when ``x`` is in it.

A project declared with its cards still hidden (trick 1) is some set of disjoint groups, one of each kind
declared, all in the seat's cards (its hand now and the card it played since); the sampler draws the set
among all of those that still leave a deal of the other cards, each weighed by the hands that hold it, and
never one kind at a time (a sira and a hundred need eight cards with a run of five, seven with four of a
kind). Nothing is inferred from a seat
*not* declaring (a declaration is optional), nor from Baloot (both cards are then played and public).

``sample(rng)`` deals the unknown cards exactly: the declared groups first, then card by card, each to a
seat that may hold it and keeps the rest dealable (Hall's condition over the seats' capacities), so a view
reached by legal play is always sampled with every certain constraint respected. Only the bidding weighs
deals (a buyer without what one buys with is kept with probability ``UNLIKELY``), and that is the first thing
given up. The inferences from plays are given up only when no deal respects them, which legal play cannot
cause (a recorded table stores illegal plays as made): ``relaxed`` says so. ``check(hands)`` lists what a
candidate deal contradicts, for tests.

A spectator's view (viewer None, no hand: the evaluation bar, domain/baloot/evaluation.py) is read the same
way with every seat's cards hidden: four seats to deal instead of three.
"""

from __future__ import annotations

import math
import random

from domain.baloot.bidding import complete_deal
from domain.baloot.cards import ACE, FULL_DECK, JACK, KING, NINE, QUEEN, TEN, cards_of, parse_card, parse_suit
from domain.baloot.events import Contract
from domain.baloot.projects import best_declaration, evaluate
from domain.baloot.tricks import NO_TRUMP, legal_plays
from domain.baloot.views import DealView

__all__ = ["Knowledge", "contract_of", "declaration_sets", "project_groups"]

UNLIKELY = 0.25       # the chance a sampled deal is kept when the buyer's hand would hardly have bought
PICKS = 8             # draws of the hidden declarations of several seats before a full search
SEARCH_NODES = 20000  # bound of that search (a view reached by legal play needs a handful)


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


class _Plan:
    """The deal of the pool under one set of constraints: the seats (and, in bidding, the stock) as slots,
    the cards each may take and how many it takes, the subsets of slots for Hall's condition, and the
    candidate declaration sets of every seat whose declared cards are hidden."""

    __slots__ = ("slots", "elig", "need", "checks", "tight", "hidden")

    def __init__(self, slots, elig, need):
        self.slots = slots            # seat of each slot (-1: the stock, in bidding)
        self.elig = elig              # cards of the pool each slot may take
        self.need = need              # cards each slot takes from the pool
        n = len(slots)
        full = (1 << n) - 1
        # Hall: for each proper subset T of the slots, the pool cards only T may take fit T's capacity.
        self.checks = []
        self.tight = [[] for _ in range(n)]      # the subsets holding slot j (checked after j takes a card)
        for t in range(full):
            others = 0
            for j in range(n):
                if not t >> j & 1:
                    others |= elig[j]
            members = tuple(j for j in range(n) if t >> j & 1)
            only = FULL_DECK & ~others
            self.checks.append((only, members))
            for j in members:
                self.tight[j].append((only, members))
        self.hidden: list[tuple[int, int, list, list]] = []   # (slot, seat, [(groups, taken)], weights)

    def fits(self, pool: int, need) -> bool:
        if pool.bit_count() != sum(need) or min(need) < 0:
            return False
        for only, members in self.checks:
            if (pool & only).bit_count() > sum(need[j] for j in members):
                return False
        return True


class Knowledge:
    """The hidden cards as seat ``me`` may reason about them (see the module's docstring)."""

    def __init__(self, view: DealView):
        self.view = view
        self.me = me = view.viewer
        self.rules = view.rules
        self.contract = contract_of(view)
        c = self.contract
        self.trump = c.suit if c is not None and c.kind == "hokum" else NO_TRUMP
        self.hand = _mask(view.hand) if view.hand is not None else 0     # a spectator holds nothing
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
        # Declared projects: shown cards are held (until played); hidden ones are dealt as sets of their kinds.
        self.declared: list[tuple[int, tuple | None, list[str]]] = []
        self.hidden: dict[int, list[str]] = {}       # seat -> the kinds it declared, cards not shown yet
        for d in view.declarations:
            if d.cards is not None:
                groups = tuple(tuple(sorted(parse_card(x) for x in g)) for g in d.cards)
                for g in groups:
                    for x in g:
                        if not played >> x & 1:
                            known[d.seat] |= 1 << x
                self.declared.append((d.seat, groups, d.kinds))
            elif d.seat == me:
                self.declared.append((me, self._own_declaration(d.kinds), d.kinds))
            else:
                self.hidden[d.seat] = list(d.kinds)
                self.declared.append((d.seat, None, d.kinds))
        if me is not None:
            known[me] = self.hand
        self.known = known
        taken = known[0] | known[1] | known[2] | known[3]
        self.pool = FULL_DECK & ~taken & ~played
        if view.phase == "bidding" and view.faceup is not None:
            self.pool &= ~(1 << parse_card(view.faceup))
        self.relaxed = False       # True once the inferences from plays had to be given up (see ``sample``)
        self._plan: _Plan | None = None

    @property
    def _sun(self) -> bool:
        return self.contract is not None and self.contract.kind == "sun"

    def _own_declaration(self, kinds: list[str]) -> tuple:
        """The viewer's own declaration (its cards are hidden in trick 1 even from it): the best set of its
        cards with the kinds it declared."""
        mine = self.hand | self.played_by[self.me]
        best = best_declaration(self.me, mine, self.rules.projects, self._sun)
        if sorted(evaluate(self.me, g, self.rules.projects, self._sun).kind for g in best) == sorted(kinds):
            return best
        sets = declaration_sets(kinds, mine, self.rules.projects, self._sun)
        if not sets:
            return best
        return max(sets, key=lambda s: sum(evaluate(self.me, g, self.rules.projects, self._sun).value
                                           for g in s[0]))[0]

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

    # ------------------------------------------------------------ the constraints

    def _make_plan(self, excluded, budget: list[int]) -> _Plan | None:
        """The plan under exclusions ``excluded``, or None if no deal respects them."""
        pool = self.pool
        slots, elig, need = [], [], []
        for s in range(4):
            if s != self.me:
                slots.append(s)
                elig.append(pool & ~excluded[s])
                need.append(self.sizes[s] - self.known[s].bit_count())
        surplus = pool.bit_count() - sum(need)
        if surplus > 0:                      # bidding: the cards not dealt yet
            slots.append(-1)
            elig.append(pool)
            need.append(surplus)
        plan = _Plan(slots, elig, need)
        if not plan.fits(pool, need):
            return None
        scheme, sun = self.rules.projects, self._sun
        for seat, kinds in self.hidden.items():
            j = slots.index(seat)
            avail = elig[j] | self.known[seat] | self.played_by[seat]
            options, weights = [], []
            for groups, cards in declaration_sets(kinds, avail, scheme, sun):
                taken = cards & pool
                rest = list(need)
                rest[j] -= taken.bit_count()
                if rest[j] < 0 or not plan.fits(pool & ~taken, rest):
                    continue
                options.append((groups, taken))
                # As many hands hold the set as ways to fill the rest of the seat's hand.
                weights.append(math.comb((elig[j] & pool & ~taken).bit_count(), rest[j]))
            if not options:
                return None
            plan.hidden.append((j, seat, options, weights))
        plan.hidden.sort(key=lambda h: len(h[2]))       # the most constrained seat first
        if len(plan.hidden) > 1 and self._search(plan, None, budget) is None:
            return None
        return plan

    def _search(self, plan: _Plan, rng: random.Random | None, budget: list[int]):
        """Declaration sets for every hidden seat (one each) that leave the pool dealable, by depth-first
        search (options shuffled by ``rng`` when given); None if there are none (or the budget runs out)."""
        hidden = plan.hidden
        pool0, need0 = self.pool, plan.need

        def go(i, pool, need, chosen):
            if i == len(hidden):
                return chosen
            j, _, options, _ = hidden[i]
            order = list(range(len(options)))
            if rng is not None:
                rng.shuffle(order)
            for o in order:
                budget[0] -= 1
                if budget[0] < 0:
                    return None
                groups, taken = options[o]
                if taken & ~pool:
                    continue
                rest = list(need)
                rest[j] -= taken.bit_count()
                if rest[j] < 0 or not plan.fits(pool & ~taken, rest):
                    continue
                found = go(i + 1, pool & ~taken, rest, chosen + [(groups, taken)])
                if found is not None:
                    return found
            return None

        return go(0, pool0, list(need0), [])

    def plan(self) -> _Plan:
        """The constraints the sampler deals by (built once): everything the view proves; failing that (only
        after an illegal play), all but the inferences from plays; ValueError if not even the hand sizes,
        the cards known and the declarations fit together (no view of a real deal)."""
        if self._plan is None:
            plan = self._make_plan(self.excluded, [SEARCH_NODES])
            if plan is None:
                self.relaxed = True
                plan = self._make_plan([0, 0, 0, 0], [SEARCH_NODES])
                if plan is None:
                    raise ValueError("no deal is consistent with the view")
            self._plan = plan
        return self._plan

    def declaration_options(self, seat: int) -> list[tuple]:
        """The declaration sets (groups, sorted) the sampler may give ``seat`` for its hidden declaration."""
        for _, s, options, _ in self.plan().hidden:
            if s == seat:
                return [groups for groups, _ in options]
        return []

    def check(self, hands, declared=None) -> list[str]:
        """What the deal ``hands`` (every seat's cards now) contradicts in this knowledge: an empty list if it
        is consistent with everything the view proves. ``declared``: the true declarations ``(seat, groups)``,
        whose hidden ones must be among the sets the sampler may draw."""
        out = []
        me = self.me
        if me is not None and hands[me] != self.hand:
            out.append(f"seat {me}'s own hand")
        held = 0
        for s in range(4):
            if hands[s].bit_count() != self.sizes[s]:
                out.append(f"seat {s} holds {hands[s].bit_count()} cards, not {self.sizes[s]}")
            if held & hands[s]:
                out.append(f"seat {s} holds a card another seat holds")
            held |= hands[s]
            if hands[s] & self.played:
                out.append(f"seat {s} holds a card already played")
            if s == me:
                continue
            if self.known[s] & ~hands[s]:
                out.append(f"seat {s} lacks cards it must hold: {cards_of(self.known[s] & ~hands[s])}")
            if hands[s] & self.excluded[s]:
                out.append(f"seat {s} holds cards its plays exclude: {cards_of(hands[s] & self.excluded[s])}")
        if held & ~(self.pool | self.known[0] | self.known[1] | self.known[2] | self.known[3]):
            out.append("a seat holds a card outside the pool")
        true = {s: groups for s, groups in (declared or ())}
        scheme, sun = self.rules.projects, self._sun
        for seat, kinds in self.hidden.items():
            cards = hands[seat] | self.played_by[seat]
            if seat in true:
                groups = _normal(true[seat])
                if groups not in {_normal(g) for g in self.declaration_options(seat)}:
                    out.append(f"seat {seat}'s declaration {groups} is not among the sets the sampler draws")
            elif not declaration_sets(kinds, cards, scheme, sun):
                out.append(f"seat {seat} cannot hold the projects it declared ({kinds})")
        return out

    # ------------------------------------------------------------ sampling

    def sample(self, rng: random.Random):
        """Hands for all four seats consistent with the view, and the declared groups: ``(hands, declared)``.
        The bidding weighs the deals: one where the buyer's hand would hardly have bought is kept only with
        probability ``UNLIKELY`` (else another is drawn, a few times at most)."""
        plan = self.plan()
        out = None
        for attempt in range(4):
            out = self._draw(plan, rng)
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

    def _draw(self, plan: _Plan, rng: random.Random) -> tuple:
        """One deal by ``plan``: the hidden declarations' sets first, then the rest of the pool."""
        pool = self.pool
        need = list(plan.need)
        hands = list(self.known)
        groups_of: dict[int, tuple] = {}
        if plan.hidden:
            picks = self._pick_declarations(plan, rng)
            for (j, seat, _, _), (groups, taken) in zip(plan.hidden, picks):
                groups_of[seat] = groups
                hands[seat] |= taken
                pool &= ~taken
                need[j] -= taken.bit_count()
        self._fill(plan, rng, pool, need, hands)
        declared = tuple((seat, groups if groups is not None else groups_of[seat])
                         for seat, groups, _ in self.declared)
        return tuple(hands), declared

    def _pick_declarations(self, plan: _Plan, rng: random.Random) -> list:
        """A declaration set for each hidden seat, seat after seat, each by weight among the sets that fit
        with those already drawn and leave the pool dealable; after a dead end (a later seat left with none)
        it starts again, ``PICKS`` times at most, then searches."""
        hidden = plan.hidden
        if len(hidden) == 1:                 # each option was checked to leave the pool dealable
            _, _, options, weights = hidden[0]
            return [rng.choices(options, weights)[0]]
        for _ in range(PICKS):
            pool, need, picks = self.pool, plan.need, []
            for j, _, options, weights in hidden:
                free = [o for o in range(len(options)) if not options[o][1] & ~pool]
                while free:
                    o = free[0] if len(free) == 1 else rng.choices(free, [weights[x] for x in free])[0]
                    taken = options[o][1]
                    rest = list(need)
                    rest[j] -= taken.bit_count()
                    if rest[j] >= 0 and plan.fits(pool & ~taken, rest):
                        break
                    free.remove(o)
                else:
                    break                    # a dead end: draw again from the first seat
                picks.append(options[o])
                pool &= ~taken
                need = rest
            else:
                return picks
        found = self._search(plan, rng, [SEARCH_NODES])
        if found is None:                    # the plan's own search found one, in order: use that order
            found = self._search(plan, None, [SEARCH_NODES])
        return found

    def _fill(self, plan: _Plan, rng: random.Random, pool: int, need: list[int], hands: list[int]) -> None:
        """Deal ``pool`` to the slots, ``need[j]`` cards to slot ``j``: card by card in random order, to a slot
        that may take it with probability in proportion to the cards it still takes, unless that would leave
        the rest undealable (Hall's condition on the subsets holding that slot)."""
        slots, elig = plan.slots, plan.elig
        cards = cards_of(pool)
        rng.shuffle(cards)
        n = len(slots)
        if all(not need[j] or not pool & ~elig[j] for j in range(n)):
            # Nothing excludes anything: deal the shuffled cards in slices.
            pos = 0
            for j in range(n):
                if slots[j] >= 0:
                    for c in cards[pos:pos + need[j]]:
                        hands[slots[j]] |= 1 << c
                pos += need[j]
            return
        tight = plan.tight
        for c in cards:
            bit = 1 << c
            pool &= ~bit
            options = [j for j in range(n) if need[j] and elig[j] & bit]
            while len(options) > 1:
                j = rng.choices(options, [need[x] for x in options])[0]
                need[j] -= 1
                if all((pool & only).bit_count() <= sum(need[x] for x in members) for only, members in tight[j]):
                    break
                need[j] += 1
                options.remove(j)
            else:
                if not options:          # pragma: no cover - the plan checked the pool is dealable
                    raise ValueError("no deal is consistent with the view")
                j = options[0]
                need[j] -= 1
            if slots[j] >= 0:
                hands[slots[j]] |= bit

    def first_five(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """Bidding: the other seats' five cards drawn at random from the hidden cards, and the rest of the
        pack (the cards ``deal_after_contract`` deals after the contract), as that draws them from ``rng``."""
        hands = [self.hand if s == self.me else 0 for s in range(4)]
        rest = cards_of(self.pool)
        rng.shuffle(rest)
        sizes = [5 - (s == self.me) * 5 for s in range(4)]
        for s in range(4):
            for _ in range(sizes[s]):
                hands[s] |= 1 << rest.pop()
        return hands, rest

    def deal_after_contract(self, rng: random.Random, receiver: int, dealer: int):
        """Bidding: full eight-card hands after a contract taken so that ``receiver`` gets the face-up card
        (the rest of the pack dealt at random among the hidden cards)."""
        deck = [0] * 32
        deck[20] = parse_card(self.view.faceup)
        hands, rest = self.first_five(rng)
        # ``complete_deal`` gives the receiver the face-up card and 2, the others 3, from the pack.
        deck[21:32] = rest
        return complete_deal(deck, dealer, tuple(hands), receiver)


def _normal(groups) -> tuple:
    return tuple(sorted(tuple(sorted(g)) for g in groups))


_KIND_GROUPS: dict[tuple[str, str, bool], list[tuple[int, ...]]] = {}
_KIND_MASKS: dict[tuple[str, str, bool], list[tuple[tuple[int, ...], int]]] = {}


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


def _group_masks(kind: str, scheme: str, sun: bool) -> list[tuple[tuple[int, ...], int]]:
    key = (kind, scheme, sun)
    if key not in _KIND_MASKS:
        _KIND_MASKS[key] = [(g, sum(1 << x for x in g)) for g in project_groups(kind, scheme, sun)]
    return _KIND_MASKS[key]


def declaration_sets(kinds, cards: int, scheme: str, sun: bool) -> list[tuple[tuple, int]]:
    """Every set of disjoint groups within ``cards``, one of each of ``kinds``: ``(groups, mask)`` pairs, the
    groups in the order of ``sorted(kinds)`` (a repeated kind once per set, not once per order)."""
    kinds = sorted(kinds)
    lists = [[(g, m) for g, m in _group_masks(k, scheme, sun) if not m & ~cards] for k in kinds]
    out: list[tuple[tuple, int]] = []

    def go(i, start, used, chosen):
        if i == len(kinds):
            out.append((tuple(chosen), used))
            return
        options = lists[i]
        for o in range(start, len(options)):
            g, m = options[o]
            if not m & used:
                go(i + 1, o + 1 if i + 1 < len(kinds) and kinds[i + 1] == kinds[i] else 0, used | m, chosen + [g])

    go(0, 0, 0, [])
    return out
