"""The expert bot: sampled deals, each solved exactly, weighed by how likely each is to have produced the bids
and cards seen (PIMC with policy-based inference).

The hard bot (``hard.py``) plays each sampled deal out with its own rollout policy, so a card is worth what
that policy makes of the rest of the deal. The strongest programs of the family do two things more: GIB and
its successors in bridge solve each sampled deal exactly (double dummy), and the Skat programs of Rebstock et
al. ("Policy-based inference in trick-taking card games", 2019) weigh each sampled deal by the likelihood of
the actions actually seen under a model of how players play. This bot does both, on the project's one
perfect-information solver (``domain/baloot/solver.py``, the fair-play analysis' and the review's):

- **a card**: ``draws`` deals of the hidden cards consistent with the view (``Knowledge.sample``: voids, the
  face-up card's taker, declarations) are each weighed by the player model's likelihood of every card the
  other three seats have played (``play_likelihood``); ``samples`` deals are drawn from them in proportion to
  their weights (systematic resampling: a deal the play makes unlikely is rarely solved, a likely one may be
  solved for several); on each, every legal card is valued exactly (``solver.card_values``: every seat then
  playing perfectly with every hand open), and the card of the best mean GP margin is played;
- **a bid** (``bidding``): deals of the other seats' five cards and the rest of the pack (the three undealt
  cards included: ``Knowledge.first_five``) are weighed by the model's likelihood of the bids made before
  (``bid_likelihood``) and resampled. ``"auction"`` (the default): on ``rollout_bid_samples`` of them, each legal
  bid is made, the rest of the auction is bid by the player model for every seat, and the contract it ends in
  is played out as the hard bot plays it out (``auction_values``): a pass is worth what the others then buy,
  a Hokum what a Sun over it costs. It bids the best when that beats the pass by ``bid_margin`` GP.
  ``"rollout"``: the hard bot's bidding on the weighed deals (each contract open to the viewer played out, a
  pass worth 0); ``"model"``: the viewer's own contracts by ``contract_model.py``, a linear model fitted on
  solved deals, and a contract of another seat's choosing solved on ``bid_samples`` deals
  (``solver.hands_value``). Against the hard bot, on the same 1,000 boards: auction +1.19 GP a board, rollout
  +0.94 (96 deals each; −0.35 and +0.15 with 32), the model −4.97 (with the solved doubles) (docs/bots.md);
- **a double**: as the hard bot doubles (``double_samples`` deals of the hidden cards, each played out at the
  current and the raised contract). Doubles solved on the sampled deals cost the most: on 600 boards against
  the hard bot the expert lost ~4 GP a board doubling on 6 solved deals and gained +0.45 [−1.33, +2.23] doubling
  as the hard bot does (docs/bots.md);
- Sawa, declarations and Baloot as the hard bot.

**The player model** is the normal bot's: its card sense (``rollout.choose_card``, the same rules on bit
masks) and its bidding scores (``simple._hokum_score``, ``_sun_score`` against its threshold). A seen action
the model would have chosen on a deal has likelihood ``1 - noise + noise / n`` there, any other ``noise /
n`` (``n`` the legal cards), so no deal is ever ruled out by a player who plays otherwise; a bid is weighed
by a logistic of the model's score around its threshold (``BID_SPREAD`` points of score for a factor e).

**Budget.** Counted in samples and in solver nodes, never in seconds, so the same view gives the same choice
on any machine: a card decision stops adding deals once ``node_budget`` nodes are searched (after
``min_samples``), and searches ``node_cap`` nodes at most: one deal's search stops at ``solve_limit`` nodes
(``solver.SearchLimit``) and that deal is left out; when none is solved within its limit the deals are played
out (the hard bot's way). A bid decision by the model stops adding deals once ``bid_node_budget``. The random
generators are seeded from the bot's seed and the view (``hard.view_seed``).

**The ceiling** (``CeilingBot``): the same machinery with the true deal instead of samples, every hand seen
(the cards still in the pack too, in the bidding): the measure of what perfect information is worth
(``match.py``'s all-seeing player). It is no level of the tables: it reads the deal's state, not a view.
"""

from __future__ import annotations

import math
import random

from msgspec.structs import replace

from domain.baloot.bots.contract_model import hokum_features, predict, sun_features
from domain.baloot import deal as deal_mod
from domain.baloot.bots.hard import HardBot, best_of, bid_candidates, bid_of, double_calls, played_out, raised_contract
from domain.baloot.bots.hard import card_values as rollout_values
from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.bots.rollout import Table, choose_card
from domain.baloot.bots.simple import NormalBot, _Bot, _hokum_score, _sun_score
from domain.baloot.cards import cards_of, parse_card, parse_suit
from domain.baloot.dealstate import DealState, speaking_order
from domain.baloot.events import Bid, ClaimSawa, PlayCard, StartDeal
from domain.baloot.solver import SearchLimit, card_values, contract_value, hands_value, solver_for
from domain.baloot.tricks import legal_plays, sawa_holds, winning_index
from domain.baloot.views import DealView, view

__all__ = ["CeilingBot", "ExpertBot", "bid_likelihood", "play_likelihood"]

NOISE = 0.5            # the share of a seat's cards the model leaves to chance (see the module's docstring)
BID_SPREAD = 1.5       # points of the normal bot's bidding score for a likelihood factor e
BIDDINGS = ("auction", "model", "rollout")   # how the bot values its bids (see the module's docstring)
THRESHOLD = 8.0        # the normal bot's bidding threshold (simple._Bot.hokum_threshold, sun_threshold)


def play_likelihood(k: Knowledge, hands, noise: float = NOISE) -> float:
    """The likelihood of every card the other seats have played in the view of ``k``, had they held
    ``hands`` (the seats' cards now) and played by the model (the normal bot's card sense)."""
    v = k.view
    c = k.contract
    if c is None or noise >= 1.0:
        return 1.0
    p = k.rules
    tb = Table(k.trump, c.closed, p.partner_winning_exemption, p.undertrump_required, c.buyer & 1)
    held = [hands[s] | k.played_by[s] for s in range(4)]
    likelihood = 1.0
    for t in [*v.tricks, None]:
        plays = v.trick if t is None else t.cards
        trick: tuple = ()
        win = 0
        for pc in plays:
            card = parse_card(pc.card)
            seat = pc.seat
            if seat != k.me:
                legal = legal_plays(held[seat], trick, tb.trump, tb.closed, tb.exemption, tb.undertrump)
                n = legal.bit_count()
                if n > 1:
                    chosen = choose_card(tb, held, seat, trick, win)
                    likelihood *= (1.0 - noise if chosen == card else 0.0) + noise / n
            held[seat] &= ~(1 << card)
            trick = trick + (card,)
            win = winning_index(trick, tb.trump)
    return likelihood


def _bid_probability(score: float, threshold: float = THRESHOLD) -> float:
    return 1.0 / (1.0 + math.exp(-(score - threshold) / BID_SPREAD))


def bid_likelihood(v: DealView, hands) -> float:
    """The likelihood of the bids the other seats made before the viewer's turn, had they held the five
    cards of ``hands``, under the normal bot's bidding scores: a bid in proportion to how far its score clears
    the threshold, a pass to how far the best score it passed over falls short (round 1: the face-up card's
    suit and Sun; round 2: the other suits and Sun)."""
    fu = parse_card(v.faceup)
    likelihood = 1.0
    for i, b in enumerate(v.bids):
        if b.seat == v.viewer:
            continue
        hand = cards_of(hands[b.seat])
        first_round = i < 4
        if b.bid == "hokum":
            suit = parse_suit(b.suit)
            likelihood *= _bid_probability(_hokum_score(hand + ([fu] if suit == fu >> 3 else []), suit))
        elif b.bid in ("sun", "before_you"):
            likelihood *= _bid_probability(_sun_score(hand))
        elif b.bid == "ashkal":
            likelihood *= _bid_probability(_sun_score(hand), THRESHOLD - 3)
        elif b.bid in ("pass", "wala"):
            suits = [fu >> 3] if first_round else [s for s in range(4) if s != fu >> 3]
            best = max([_sun_score(hand)] + [_hokum_score(hand + ([fu] if s == fu >> 3 else []), s)
                                              for s in suits])
            likelihood *= 1.0 - _bid_probability(best)
    return likelihood


def auction_values(v: DealView, k: Knowledge, seeds, model) -> list[float]:
    """The mean GP margin for the viewer's team of each of the viewer's legal bids (``v.legal_actions``)
    over the deals of ``seeds`` (``Knowledge.first_five``: the other seats' five cards and the rest of the pack
    drawn from each): the bid made, the rest of the auction bid by ``model`` for every seat (the viewer's later
    turns too), and the contract it ends in played out by the rollout policy (a deal thrown in: 0)."""
    order = speaking_order(v.dealer)
    past = [Bid(b.seat, b.bid, parse_suit(b.suit) if b.suit else None) for b in v.bids]
    actions = v.legal_actions
    totals = [0.0] * len(actions)
    scorers: dict = {}
    for seed in seeds:
        hands, rest = k.first_five(random.Random(seed))
        deck = [0] * 32                            # dealt as the engine deals (deal.deal_first_five)
        for i, seat in enumerate(order):
            five = cards_of(hands[seat])
            deck[3 * i:3 * i + 3], deck[12 + 2 * i:14 + 2 * i] = five[:3], five[3:]
        deck[20] = parse_card(v.faceup)
        deck[21:32] = rest
        state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=v.dealer, profile=k.rules, deck=tuple(deck),
                                                             scores_before=tuple(v.scores_before)))
        for b in past:
            state, _ = deal_mod.step(state, b)
        memo: dict = {}
        for i, a in enumerate(actions):
            s, _ = deal_mod.step(state, a)
            while s.phase == "bidding":
                seen = view(s, s.turn)
                s, _ = deal_mod.step(s, model.choose(seen) if len(seen.legal_actions) > 1 else seen.legal_actions[0])
            if s.contract is not None and s.phase in ("doubling", "playing"):
                totals[i] += played_out(k.rules, s.contract, s.hands, order, v.viewer & 1, scorers, memo)
    return [t / len(seeds) for t in totals]


def resample(weights: list[float], n: int, rng: random.Random) -> list[int]:
    """``n`` indices drawn in proportion to ``weights`` (systematic resampling: one random offset, evenly
    spaced pointers), in index order; all-zero weights count as equal."""
    total = sum(weights)
    if total <= 0.0:
        weights, total = [1.0] * len(weights), float(len(weights))
    step = total / n
    u = rng.random() * step
    out, acc, i = [], weights[0], 0
    for j in range(n):
        point = u + j * step
        while point > acc and i < len(weights) - 1:
            i += 1
            acc += weights[i]
        out.append(i)
    return out


class ExpertBot(HardBot):
    level = "expert"

    def __init__(self, seed: int = 0, samples: int = 10, draws: int = 40, min_samples: int = 3,
                 node_budget: int = 60_000, bid_samples: int = 6, bid_draws: int = 24, min_bid_samples: int = 2,
                 bid_node_budget: int = 120_000, bid_margin: float = 1.0, double_margin: float = 4.0,
                 noise: float = NOISE, solve_from: int = 1, rollout_samples: int = 48, refine_band: float = 0.0,
                 sawa_cards: int = 2, bidding: str = "auction", rollout_bid_samples: int = 96,
                 double_samples: int = 48, solve_limit: int = 150_000,
                 node_cap: int = 400_000):
        super().__init__(seed=seed, samples=samples, bid_samples=bid_samples, bid_margin=bid_margin,
                         double_margin=double_margin, sawa_cards=sawa_cards, double_samples=double_samples)
        self.draws = draws
        self.min_samples = min_samples
        self.node_budget = node_budget
        self.bid_draws = bid_draws
        self.min_bid_samples = min_bid_samples
        self.bid_node_budget = bid_node_budget
        self.noise = noise
        self.solve_from = solve_from
        self.refine_band = refine_band
        self.rollout_samples = rollout_samples
        if bidding not in BIDDINGS:
            raise ValueError(f"bidding must be one of {BIDDINGS}, not {bidding!r}")
        self.bidding = bidding
        self.model = NormalBot()       # the player model's bidding, for the rest of an auction (``auction_values``)
        self.rollout_bid_samples = rollout_bid_samples
        self.solve_limit = solve_limit
        self.node_cap = node_cap
        self.nodes = 0                 # solver nodes searched by the last decision (the budget's unit)
        self.solved = 0                # deals the last card decision solved (0: it played them out)

    # ------------------------------------------------------------ card play

    def _worlds(self, k: Knowledge, rng: random.Random, n: int) -> list:
        """``n`` deals of the hidden cards, drawn among ``draws`` in proportion to the model's likelihood."""
        drawn = [k.sample(rng) for _ in range(self.draws)]
        weights = [play_likelihood(k, hands, self.noise) for hands, _ in drawn]
        return [drawn[i] for i in resample(weights, n, rng)]

    def _play(self, view: DealView, k: Knowledge, plays: list[PlayCard], rng: random.Random) -> PlayCard:
        from domain.baloot.evaluation import _public_state     # it imports the bots' Knowledge: not at the top

        if len(view.tricks) < self.solve_from:                  # the first trick: played out, not solved
            totals = rollout_values(view, k, plays, self._worlds(k, rng, self.rollout_samples))
            return plays[best_of(totals)]
        base = _public_state(view, k)
        cards = {a.card: i for i, a in enumerate(plays)}
        totals = [0.0] * len(plays)
        solvers: dict = {}
        self.nodes = 0
        solved = 0
        worlds = self._worlds(k, rng, self.samples)
        for hands, declared in worlds:
            if solved >= self.min_samples and self.nodes >= self.node_budget or self.nodes >= self.node_cap:
                break
            s = replace(base, hands=hands, declared=declared)
            solver = solvers.get(hands)
            if solver is None:
                solver = solvers[hands] = solver_for(s)
            before = solver.nodes
            solver.limit = before + min(self.solve_limit, self.node_cap - self.nodes)
            try:
                values = card_values(s, solver)
            except SearchLimit:               # too deep a search for one deal: the deal is left out
                values = ()
            self.nodes += solver.nodes - before
            solved += bool(values)
            for card, value in values:
                totals[cards[card]] += value
        if not solved:                        # no deal solved within its limit: played out instead
            totals = rollout_values(view, k, plays, worlds)
        self.solved = solved
        return plays[best_of(totals)]

    # ------------------------------------------------------------ bidding

    def _bid(self, view: DealView, rng: random.Random):
        kinds = {a.bid: a for a in reversed(view.legal_actions)}
        if "kawesh" in kinds:
            return kinds["kawesh"]
        if self.bidding == "rollout":
            return super()._bid(view, rng)
        if self.bidding == "auction":              # the best bid when it beats the pass's own value by the margin
            k = Knowledge(view)
            actions = view.legal_actions
            values = auction_values(view, k, self._bid_seeds(view, k, rng), self.model)
            passing = kinds.get("pass") or kinds.get("wala")
            floor = 0.0 if passing is None else values[actions.index(passing)]
            return bid_of(view, [(a,) for a in actions], passing, values, self.bid_margin + floor)
        candidates, passing = bid_candidates(view)
        values = [self._model_value(view, c, r) for _, c, r in candidates]
        others = [i for i, v in enumerate(values) if v is None]       # a contract of another seat's choosing
        if self.refine_band and any(v is not None and abs(v - self.bid_margin) < self.refine_band for v in values):
            others = list(range(len(candidates)))                      # a close call: solved samples decide
        if others:
            k = Knowledge(view)
            kept = self._bid_worlds(view, k, rng, self.bid_samples)
            solved = self._solved_values(view, k, [candidates[i][1:] for i in others], kept)
            for i, v in zip(others, solved):
                values[i] = v
        return bid_of(view, candidates, passing, values, self.bid_margin)

    def _bid_seeds(self, view: DealView, k: Knowledge, rng: random.Random) -> list[int]:
        """The deals the auction and rollout biddings value a bid on: ``rollout_bid_samples``, weighed by the bids
        seen (``_bid_worlds``)."""
        return self._bid_worlds(view, k, rng, self.rollout_bid_samples)

    def _bid_worlds(self, view: DealView, k: Knowledge, rng: random.Random, n: int) -> list[int]:
        """``n`` seeds of the other seats' first five cards (``Knowledge.first_five``, and the rest of the deal
        after it), drawn among ``bid_draws`` (at least twice ``n``) in proportion to the model's likelihood of the bids
        made before."""
        seeds = [rng.getrandbits(64) for _ in range(max(self.bid_draws, 2 * n))]
        weights = [bid_likelihood(view, k.first_five(random.Random(s))[0]) for s in seeds]
        return [seeds[i] for i in resample(weights, n, rng)]

    def _model_value(self, view: DealView, contract, receiver: int) -> float | None:
        """The contract model's value of one of the viewer's own team's contracts (None for another's)."""
        me = view.viewer
        if contract.buyer != me:
            return None
        five = [parse_card(c) for c in view.hand]
        fu = parse_card(view.faceup)
        place = speaking_order(view.dealer).index(me)
        if contract.kind == "sun":
            f = sun_features(five, place, fu) if receiver != me else sun_features(five + [fu], place)
            return predict("sun", f)
        return predict("hokum", hokum_features(five + [fu], contract.suit, place))

    def _solved_values(self, view, k: Knowledge, contracts, seeds) -> list[float]:
        """Mean exact GP margin for the bot's team of each (contract, receiver) over the deals of ``seeds``
        (stopping once ``bid_node_budget`` nodes are searched, after ``min_bid_samples``)."""
        table = _table(view)
        totals = [0.0] * len(contracts)
        self.nodes = 0
        used = 0
        for seed in seeds:
            if used >= self.min_bid_samples and self.nodes >= self.bid_node_budget:
                break
            used += 1
            dealt: dict = {}
            solvers: dict = {}
            for i, (contract, receiver) in enumerate(contracts):
                if receiver not in dealt:
                    dealt[receiver] = k.deal_after_contract(random.Random(seed), receiver, view.dealer)
                totals[i] += hands_value(table, contract, dealt[receiver], view.viewer, solvers)
            self.nodes += sum(x.nodes for x in solvers.values())
        return [t / used for t in totals]


def _table(v: DealView) -> DealState:
    """What ``solver.hands_value`` reads of a deal's state besides the hands: the rules, the speaking order
    and the scores before the deal (a Gahwa's value is the game's)."""
    return DealState(profile=v.rules, dealer=v.dealer, order=speaking_order(v.dealer),
                     scores_before=tuple(v.scores_before))


class CeilingBot(_Bot):
    """The all-seeing player: the expert's choices made on the true deal (see the module's docstring).
    ``choose_seeing(state)`` reads the deal's whole state; it is for ``match.py`` only."""

    level = "ceiling"
    sees_all = True

    _deal: tuple = ()
    _solvers: dict = {}          # the searches of the deal being played, shared by the ceilings seated at it

    def __init__(self, bid_margin: float = 1.0, double_margin: float = 4.0):
        self.bid_margin = bid_margin
        self.double_margin = double_margin
        self.state: DealState | None = None

    @classmethod
    def solvers(cls, state: DealState) -> dict:
        """The searches of ``state``'s deal by eight-card hands and play rules (``solver.hands_value``'s keys):
        its contracts' searches in the bidding are its play's, and every ceiling at the table shares them."""
        if cls._deal != (state.deck, state.dealer):
            cls._deal, cls._solvers = (state.deck, state.dealer), {}
        return cls._solvers

    def choose_seeing(self, state: DealState):
        """The seat to act's choice in ``state``, every card seen (``_Bot.choose`` with the state at hand)."""
        self.state = state
        v = view(state, state.turn)
        return v.legal_actions[0] if len(v.legal_actions) == 1 else self.choose(v)

    def play(self, v: DealView, plays: list[PlayCard]) -> PlayCard:
        s, p = self.state, self.state.profile
        if v.may_claim_sawa and sawa_holds(s.hands, s.leader, s.trick, s.turn & 1, s.trump, s.contract.closed,
                                           p.partner_winning_exemption, p.undertrump_required):
            return ClaimSawa(s.turn)
        if len(plays) == 1:
            return plays[0]
        key = (tuple(h | x for h, x in zip(s.hands, s.played)), s.trump, s.contract.closed)
        solvers = self.solvers(s)
        solver = solvers.get(key)
        if solver is None:
            solver = solvers[key] = solver_for(s)
        values = dict(card_values(s, solver))
        return max(plays, key=lambda a: values[a.card])

    def bid(self, v: DealView):
        kinds = {a.bid: a for a in reversed(v.legal_actions)}
        if "kawesh" in kinds:
            return kinds["kawesh"]
        candidates, passing = bid_candidates(v)
        solvers = self.solvers(self.state)
        values = [contract_value(self.state, c, r, v.viewer, solvers) for _, c, r in candidates]
        return bid_of(v, candidates, passing, values, self.bid_margin)

    def double(self, v: DealView, actions):
        passing, call = double_calls(actions)
        if call is None:
            return passing
        k = Knowledge(v)
        hands = self.state.hands
        solvers = self.solvers(self.state)
        table = _table(v)
        now = hands_value(table, k.contract, hands, v.viewer, solvers)
        after = hands_value(table, raised_contract(k.contract, call), hands, v.viewer, solvers)
        if call.call == "gahwa":
            return call if after > 0 else passing
        return call if after - now >= self.double_margin else passing
