"""The hard bot: determinized Monte Carlo (PIMC) over the hidden hands its view allows.

Its only input is the seat's view. ``Knowledge`` counts the cards played and infers what each other seat
cannot hold (voids, no trumps, no higher trump) and what it must hold (the face-up card's taker, shown
projects); it deals ``samples`` hidden hands consistent with all of it. Each candidate action is then played
out on every sample (the same samples for every action) by the rollout policy and scored by the engine, and
the action with the best mean GP margin for the bot's team is chosen:

- a card: each legal card, played now, then the deal played out;
- a bid: the contract each bid would make (Hokum in a suit, Sun, Ashkal, Sun over a Hokum, confirm), dealt
  out with the rest of the pack at random and played out; it bids when the best expected margin clears
  ``bid_margin`` GP (passing counts as 0), Kawesh when it may;
- a double: the same rollouts scored at the current and the next multiplier; it doubles (open) when the
  next one is better by ``double_margin`` (Gahwa, which stakes the game, only when nine samples in ten win);
- a declaration, Baloot: always; Sawa: when it holds for every way the hidden cards may lie (checked
  exactly once few cards are left).

The budget is counted in samples, not seconds, and the random generator is seeded from the bot's ``seed``
and a hash of what the view shows, so the same view gives the same choice on any machine.
"""

from __future__ import annotations

import hashlib
import itertools
import random

import msgspec

from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.bots.rollout import Scorer, Table, baloot_holders, play_out
from domain.baloot.bots.simple import _Bot
from domain.baloot.cards import cards_of, parse_card, parse_suit
from domain.baloot.dealstate import DealState, speaking_order
from domain.baloot.events import ClaimSawa, Contract, PlayCard
from domain.baloot.projects import best_declaration
from domain.baloot.tricks import NO_TRUMP, sawa_holds
from domain.baloot.doubling import DOUBLE_STEPS
from domain.baloot.views import DealView

GAHWA_SHARE = 0.9      # Gahwa (قهوة) is called only when this share of the samples wins the deal


def view_seed(view: DealView, seed: int) -> int:
    """A seed from the bot's seed and everything public in the view plus the seat's own hand."""
    public = (view.viewer, view.dealer, view.scores_before, view.commitment, view.faceup, view.hand, view.bids,
              view.doubles, view.tricks, view.trick, view.declarations, view.baloot, view.phase)
    digest = hashlib.blake2b(msgspec.json.encode(public), digest_size=8, key=str(seed).encode()).digest()
    return int.from_bytes(digest, "big")


class HardBot(_Bot):
    level = "hard"

    def __init__(self, seed: int = 0, samples: int = 48, bid_samples: int = 32, bid_margin: float = 1.0,
                 double_margin: float = 4.0, sawa_cards: int = 2, double_samples: int | None = None):
        self.seed = seed
        self.samples = samples
        self.bid_samples = bid_samples
        self.double_samples = samples if double_samples is None else double_samples
        self.bid_margin = bid_margin
        self.double_margin = double_margin
        self.sawa_cards = sawa_cards

    def choose(self, view: DealView):
        actions = view.legal_actions
        return actions[0] if len(actions) == 1 else super().choose(view)

    def _rng(self, view: DealView) -> random.Random:
        return random.Random(view_seed(view, self.seed))

    def bid(self, view: DealView):
        return self._bid(view, self._rng(view))

    def double(self, view: DealView, actions):
        return self._double(view, self._rng(view))

    def play(self, view: DealView, plays: list[PlayCard]):
        k = Knowledge(view)
        if view.may_claim_sawa and self._sawa_holds(k):
            return ClaimSawa(view.viewer)
        if len(plays) == 1:
            return plays[0]
        return self._play(view, k, plays, self._rng(view))

    # ------------------------------------------------------------ card play

    def _play(self, view: DealView, k: Knowledge, plays: list[PlayCard], rng: random.Random) -> PlayCard:
        totals = card_values(view, k, plays, (k.sample(rng) for _ in range(self.samples)))
        return plays[best_of(totals)]

    def _sawa_holds(self, k: Knowledge) -> bool:
        """Sawa for certain: it holds on every split of the hidden cards the view allows (few cards left)."""
        v = k.view
        if max(v.hand_sizes) > self.sawa_cards or k.contract is None:
            return False
        others = [s for s in range(4) if s != k.me]
        leader = v.trick[0].seat if v.trick else k.me
        trick = tuple(parse_card(p.card) for p in v.trick)
        p = k.rules
        any_split = False
        for hands in _splits(k, others):
            any_split = True
            if not sawa_holds(hands, leader, trick, k.me & 1, k.trump, k.contract.closed,
                              p.partner_winning_exemption, p.undertrump_required):
                return False
        return any_split

    # ------------------------------------------------------------ bidding

    def _bid(self, view: DealView, rng: random.Random):
        kinds = {a.bid: a for a in reversed(view.legal_actions)}
        if "kawesh" in kinds:
            return kinds["kawesh"]
        candidates, passing = bid_candidates(view)
        k = Knowledge(view)
        values = self._contract_values(view, k, [(c, r) for _, c, r in candidates], self._bid_seeds(view, k, rng))
        return bid_of(view, candidates, passing, values, self.bid_margin)

    def _bid_seeds(self, view: DealView, k: Knowledge, rng: random.Random) -> list[int]:
        """The seeds of the deals a bid is valued on (``Knowledge.deal_after_contract``): ``bid_samples``."""
        return [rng.getrandbits(64) for _ in range(self.bid_samples)]

    def _contract_values(self, view, k: Knowledge, contracts, seeds: list[int]) -> list[float]:
        """Mean GP margin for the bot's team of each (contract, receiver) over the deals of ``seeds``, dealt and
        played out."""
        totals = contract_values(view, k, contracts, seeds,
                                 lambda receiver, seed: k.deal_after_contract(random.Random(seed), receiver,
                                                                              view.dealer))
        return [t / len(seeds) for t in totals]

    # ------------------------------------------------------------ doubling

    def _double(self, view: DealView, rng: random.Random):
        passing, call = double_calls(view.legal_actions)
        if call is None:
            return passing
        k = Knowledge(view)
        n = self.double_samples
        gain, won = double_gain(view, k, raised_contract(k.contract, call), (k.sample(rng)[0] for _ in range(n)))
        if call.call == "gahwa":       # the whole game on one deal: only when it is (almost) always won
            return call if won >= GAHWA_SHARE * n else passing
        return call if gain / n >= self.double_margin else passing


def bid_candidates(view: DealView) -> tuple[list, object]:
    """The bids open to the viewer as (bid action, the contract it makes, the receiver of the face-up card),
    and the pass (None when passing is not allowed); where passing leaves a Sun to the seat that called it
    ("before you"), the pass is a candidate too, with that contract."""
    me = view.viewer
    kinds = {}
    for a in view.legal_actions:
        kinds.setdefault(a.bid, a)
    faceup_suit = parse_card(view.faceup) >> 3
    candidates = []
    for a in view.legal_actions:
        if a.bid == "hokum":
            candidates.append((a, Contract("hokum", a.suit, me), me))
        elif a.bid in ("sun", "before_you"):
            candidates.append((a, Contract("sun", None, me), me))
        elif a.bid == "ashkal":
            candidates.append((a, Contract("sun", None, me, True), (me + 2) & 3))
        elif a.bid == "confirm":
            suit = next((b.suit for b in reversed(view.bids) if b.bid == "hokum"), None)
            trump = parse_suit(suit) if suit else faceup_suit
            candidates.append((a, Contract("hokum", trump, me), me))
    passing = kinds.get("pass") or kinds.get("wala")
    if "before_you" in kinds:
        sun = next(b for b in reversed(view.bids) if b.bid in ("sun", "ashkal"))
        ashkal = sun.bid == "ashkal"
        candidates.append((passing, Contract("sun", None, sun.seat, ashkal),
                           (sun.seat + 2) & 3 if ashkal else sun.seat))
    return candidates, passing


def bid_of(view: DealView, candidates: list, passing, values: list[float], margin: float):
    """The bid among ``candidates`` (``bid_candidates``) of the best of ``values`` (the first of equals), or
    the pass when it does not clear ``margin`` GP (passing is worth 0)."""
    if not candidates:
        return passing or view.legal_actions[0]
    value, i = max(zip(values, range(len(candidates))), key=lambda x: (x[0], -x[1]))
    action = candidates[i][0]
    if passing is None or action is passing:
        return action
    return action if value >= margin else passing


def double_calls(actions) -> tuple:
    """The pass and the next open double among a doubling turn's ``actions`` (None when there is none)."""
    passing = next(a for a in actions if a.call == "pass")
    return passing, next((a for a in actions if a.call != "pass" and not a.closed), None)


def contract_values(view: DealView, k: Knowledge, contracts, seeds, deal) -> list[float]:
    """Each (contract, receiver)'s total GP margin for the viewer's team over one deal per seed of ``seeds``:
    ``deal(receiver, seed)`` gives the eight-card hands (the hidden cards sampled, or the true deal), the same
    for every contract (common random numbers), each played out."""
    order = speaking_order(view.dealer)
    totals = [0.0] * len(contracts)
    scorers: dict = {}
    for sample_seed in seeds:
        dealt: dict = {}
        rollouts: dict = {}
        for i, (contract, receiver) in enumerate(contracts):
            if receiver not in dealt:
                dealt[receiver] = deal(receiver, sample_seed)
            totals[i] += played_out(k.rules, contract, dealt[receiver], order, view.viewer & 1, scorers, rollouts)
    return totals


def played_out(rules, contract: Contract, hands, order, team: int, scorers: dict, memo: dict) -> float:
    """The GP margin for ``team`` of ``contract`` on the eight-card ``hands``, dealt out from its first card by
    the rollout policy (``_deal_out``); ``scorers`` keeps one decision's scorers by contract kind and suit."""
    key = (contract.kind, contract.suit)
    scorer = scorers.get(key)
    if scorer is None:
        trump = contract.suit if contract.kind == "hokum" else NO_TRUMP
        scorer = scorers[key] = Scorer(DealState(profile=rules, contract=contract, order=order, trump=trump), team)
    return _deal_out(rules, contract, hands, order, scorer, memo)


def raised_contract(c: Contract, call) -> Contract:
    """The contract after the double ``call`` (Gahwa: the game on this deal)."""
    return (msgspec.structs.replace(c, gahwa=True, closed=False) if call.call == "gahwa"
            else msgspec.structs.replace(c, multiplier=2 + DOUBLE_STEPS.index(call.call)))


def double_gain(view: DealView, k: Knowledge, raised: Contract, deals) -> tuple[float, int]:
    """The total gain of playing ``raised`` over the current contract for the viewer's team, over ``deals``
    (hands: sampled or true), and on how many of them the raised contract wins."""
    scorer = Scorer(_template(view, k), view.viewer & 1)
    order = speaking_order(view.dealer)
    gain, won = 0.0, 0
    for hands in deals:
        memo: dict = {}
        after = _deal_out(k.rules, raised, hands, order, scorer, memo)
        gain += after - _deal_out(k.rules, k.contract, hands, order, scorer, memo)
        won += after > 0
    return gain, won


def card_values(view: DealView, k: Knowledge, plays: list[PlayCard], deals) -> list[float]:
    """Each legal card's total GP margin for the viewer's team over ``deals`` ((hands, declared) pairs: the
    samples of the hidden cards, or the true hands), each card played now and the deal played out by the
    rollout policy (the same deals for every card)."""
    c = k.contract
    tb = Table(k.trump, c.closed, k.rules.partner_winning_exemption, k.rules.undertrump_required, c.buyer & 1)
    scorer = Scorer(_template(view, k), k.me & 1)
    trick = tuple(parse_card(p.card) for p in view.trick)
    leader = view.trick[0].seat if view.trick else k.me
    trick_no = len(view.tricks)
    totals = [0.0] * len(plays)
    for hands, declared in deals:
        declared = _with_pending(view, k, hands, declared)
        baloot = baloot_holders(k.trump, hands, k.played_by, tuple(view.baloot))
        for i, a in enumerate(plays):
            points, tricks = list(view.points), list(view.tricks_won)
            play_out(tb, list(hands), leader, trick, trick_no, points, tricks, a.card)
            totals[i] += scorer.margin(points, tricks, baloot, declared)
    return totals


def best_of(totals: list[float]) -> int:
    """The index of the best value (the first of equals)."""
    return max(range(len(totals)), key=lambda i: (totals[i], -i))


def _deal_out(rules, contract: Contract, hands, order, scorer: Scorer, memo: dict | None = None) -> float:
    """The margin of a deal played out from its first card under ``contract``, every seat declaring its best
    projects and announcing Baloot (``memo`` keeps the rollouts and declarations of one set of hands)."""
    memo = {} if memo is None else memo
    trump = contract.suit if contract.kind == "hokum" else NO_TRUMP
    sun = contract.kind == "sun"
    key = (hands, trump, contract.buyer & 1, sun)
    if key not in memo:
        declared = ()
        if rules.projects != "none":
            declared = tuple((s, g) for s in order if (g := best_declaration(s, hands[s], rules.projects, sun)))
        tb = Table(trump, contract.closed, rules.partner_winning_exemption, rules.undertrump_required,
                   contract.buyer & 1)
        points, tricks = [0, 0], [0, 0]
        play_out(tb, list(hands), order[0], (), 0, points, tricks)
        memo[key] = (points, tricks, baloot_holders(trump, hands, (0, 0, 0, 0), ()), declared)
    points, tricks, baloot, declared = memo[key]
    return scorer.margin(points, tricks, baloot, declared, contract)


def _template(view: DealView, k: Knowledge) -> DealState:
    return DealState(profile=k.rules, contract=k.contract, order=speaking_order(view.dealer), trump=k.trump,
                     phase="review")


def _with_pending(view: DealView, k: Knowledge, hands, declared) -> tuple:
    """Declarations and the seats still to declare in trick 1 (they declare their best set)."""
    declared = tuple((s, g) for s, g in declared if g)
    if len(view.tricks) or k.rules.projects == "none" or k.contract is None:
        return declared
    done = {s for s, _ in declared} | {d.seat for d in view.declarations}
    sun = k.contract.kind == "sun"
    out = list(declared)
    for s in range(4):
        if s not in done and not k.played_by[s]:
            g = best_declaration(s, hands[s], k.rules.projects, sun)
            if g:
                out.append((s, g))
    return tuple(out)


def _splits(k: Knowledge, others: list[int]):
    """Every way the hidden cards can lie among ``others`` respecting the view (few cards only)."""
    pool = cards_of(k.pool)
    need = [k.sizes[s] - k.known[s].bit_count() for s in others]
    a, b = others[0], others[1]

    def ok(seat, cards):
        return not any(k.excluded[seat] >> x & 1 for x in cards)

    for first in itertools.combinations(pool, need[0]):
        if not ok(a, first):
            continue
        rest = [x for x in pool if x not in first]
        for second in itertools.combinations(rest, need[1]):
            if not ok(b, second):
                continue
            third = [x for x in rest if x not in second]
            if not ok(others[2], third):
                continue
            hands = list(k.known)
            for seat, cards in ((a, first), (b, second), (others[2], third)):
                for x in cards:
                    hands[seat] |= 1 << x
            yield tuple(hands)
