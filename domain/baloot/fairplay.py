"""Fair-play analysis of played deals: does a player choose as if he saw the hidden cards?

Every card, bid and double a player chose among several is valued twice:

* **from his view** (``honest``): the hard bot's evaluator over ``samples`` deals of the hidden cards
  consistent with his seat's view (its sampling and rollouts, seeded from ``seed`` and the view): what he
  could know;
* **on the true hands** (``true``): exactly, by the perfect-information solver (domain/baloot/solver.py): each
  card played now and the rest of the deal played perfectly with every hand open; each bid by the contract it
  makes on the true deal, played so; each double by what it gains over the contract as it stands. No bot owns
  this truth, so a cheater is judged by what the cards were worth, not by what our bot thinks of them.

A decision is *telling* when the best from his view (the honest best) is worth at least ``margin`` GP less on
the true hands than the true best; it is *followed* when he chose one of the true bests (exact values tie:
any of them is the perfect choice). The partner variant values the cards again from his view with his
partner's true hand known (what a colluding pair tells each other): partner-telling where that best is not
the honest best and is worth the margin more on the true hands.

**The judgement** (``judge``) is not a count against other players. Each player has an honest model of his own:
he picks among his options by their honest values, the better ones more often (a softmax at a temperature,
and a share of uniform slips: ``choice_probabilities``), his strength fitted on his decisions where the hidden
cards did not matter (``fit_strength``); the model's share of the true bests, calibrated on honest players
(``CALIBRATION``), is how likely his honest self follows them (``follow_probability``). On each telling
decision the evidence grows by the likelihood ratio of what he did, a cheater (who takes a true best on a
share of them) against that honest self, mixed evenly over the shares in ``SHARES`` (``evidence_terms``):
following a true best that his honest self would rarely find weighs much; following one it would often find
weighs little; not following costs a little. Summed over every deal he plays, the evidence is a likelihood
ratio, a martingale for an honest player of the model, so by Ville's inequality it ever reaches log(1/α) with
probability at most α: the flag's line is log(tests/level) for ``tests`` players and variants judged together.
No flag is raised on fewer than ``MIN_TELLING`` telling decisions. A flag is a reason for a referee to look at
the replays, never a verdict.

Declarations are not valued: the platform's players declare their best projects, which tells nothing of the
other hands. Only the events and the seed go in, so the same log and seed always give the same decisions.
The read model, the reports and the shared-board variant are the platform's (services/fairplay).
"""

from __future__ import annotations

import hashlib
import math
import random

import msgspec

from domain.baloot.bots.hard import (
    best_of, bid_candidates, card_values, contract_values, double_gain, raised_contract, view_seed,
)
from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.bots.simple import _plays
from domain.baloot.bidding import complete_deal
from domain.baloot.cards import card_name, cards_of, parse_card, suit_name
from domain.baloot.deal import INITIAL, evolve, step
from domain.baloot.handrecord import HandRecord, record_commands, record_start
from domain.baloot.events import BidMade, CardPlayed, DoubleCalled, PlayCard, RecordResult, StartDeal
from domain.baloot.solver import card_values as exact_card_values, contract_value, hands_value, solver_for
from domain.baloot.views import view


class Decision(msgspec.Struct, frozen=True):
    index: int                     # the decision's event in the deal (0 = the first event)
    seat: int
    trick: int                     # 1 to 8 (0: a bid or a double)
    legal: tuple[str, ...]         # the choices: cards ("QH"), bids ("sun", "hokum:H", "pass"), calls ("double")
    played: str
    honest: tuple[float, ...]      # each legal card's mean GP margin for the player's team, as he could know it
    true: tuple[float, ...]        # the same on the true hands
    honest_best: str
    true_best: str
    telling: bool                  # the honest and the true best differ by >= margin GP on the true hands
    followed_true: bool            # played the true best where it was not the honest best
    # The partner variant: the same sampling with the partner's true hand known (None where his hidden
    # declaration leaves no such deal to sample); telling where its best is not the honest best and is worth
    # the margin more on the true hands: a choice right only given the partner's hand.
    partner: tuple[float, ...] | None = None
    partner_best: str | None = None
    partner_telling: bool = False
    followed_partner: bool = False
    kind: str = "card"             # "card", "bid" or "double"


def deal_seed(seed: int, deck) -> int:
    """The analysis' seed for one deal: ``seed`` (the platform's ``BALOOT_FAIRPLAY_SEED``, the command's
    ``--seed``) mixed with the deal's own cards, so that a deal gets the same samples wherever it is analysed:
    from a table's log or from its hand record, on any table."""
    digest = hashlib.blake2b(bytes(deck), digest_size=8, key=str(seed).encode()).digest()
    return int.from_bytes(digest, "big")


def _sampling_seed(v, seed: int) -> int:
    """The seed of one decision's samples: the deal's seed and everything public in the view but the deal's
    commitment (a hand record replayed from its cards has none; the samples must not depend on it)."""
    return view_seed(msgspec.structs.replace(v, commitment=None), seed)


def analyse_deal(events, seed: int = 0, samples: int = 16, margin: float = 2.0,
                 seats: tuple[int, ...] = (0, 1, 2, 3), kinds: tuple[str, ...] = ("card", "bid", "double")
                 ) -> list[Decision]:
    """Every card, bid and double (of ``kinds``) chosen among several in a played deal (its events, from the
    deal's start) by ``seats``, valued as above."""
    state, out = INITIAL, []
    solvers: dict = {}                 # the exact searches of this deal, by hands and play rules
    mixed = None
    for index, event in enumerate(events):
        if mixed is None and state.deck:
            mixed = seed = deal_seed(seed, state.deck)
        if getattr(event, "seat", None) in seats:
            if isinstance(event, CardPlayed) and state.phase == "playing" and "card" in kinds:
                v = view(state, event.seat)
                plays = _plays(v)
                if len(plays) > 1:
                    out.append(_decision(state, v, plays, index, event, seed, samples, margin, solvers))
            elif isinstance(event, BidMade) and state.phase == "bidding" and "bid" in kinds:
                out += _bid_decision(state, index, event, seed, samples, margin, solvers)
            elif isinstance(event, DoubleCalled) and state.phase == "doubling" and "double" in kinds:
                out += _double_decision(state, index, event, seed, samples, margin, solvers)
        state = evolve(state, event)
    return out


def _exact_cards(state, plays, solvers: dict, honest=None) -> list[float]:
    """Each of ``plays``' exact GP margin for the seat's team on the true hands (the solver; one per deal's
    hands and play rules, shared with the bids' searches of the same contract)."""
    c = state.contract
    hands = tuple(h | p for h, p in zip(state.hands, state.played))         # the eight-card hands
    key = (hands, c.suit if c.kind == "hokum" else -1, c.closed)
    if key not in solvers:
        solvers[key] = solver_for(state)
    guesses = None if honest is None else {a.card: h for a, h in zip(plays, honest)}   # the search's hints
    exact = dict(exact_card_values(state, solvers[key], guesses))
    return [exact[a.card] for a in plays]


def _choice(index, seat, trick, names, played, honest, true, margin, kind) -> Decision:
    """A decision whose choices ``names`` are valued ``honest`` and ``true`` (no partner variant): telling
    where the honest best is worth ``margin`` less than the best on the true hands; followed where the card
    played is one of the true bests (exact values tie often: any of them is the perfect choice)."""
    h, t = best_of(honest), best_of(true)
    telling = true[t] - true[h] >= margin
    return Decision(index, seat, trick, tuple(names), names[played], tuple(honest), tuple(true), names[h], names[t],
                    telling, telling and true[played] == true[t], kind=kind)


def _bid_name(a) -> str:
    return a.bid if a.suit is None or a.bid != "hokum" else f"hokum:{suit_name(a.suit)}"


def bid_options(v) -> list | None:
    """The bids open to the viewer of ``v`` (bidding, his turn) as the analysis values them: [(bid action,
    (contract, receiver) or None for a pass worth 0), …], or None where it values none (no choice, or Kawesh
    open: nothing hidden to judge). The review's values (domain/baloot/viewvalues.py) take the same list."""
    if any(a.bid == "kawesh" for a in v.legal_actions):
        return None
    candidates, passing = bid_candidates(v)
    options = [(a, (c, r)) for a, c, r in candidates]
    if passing is not None and all(a is not passing for a, _ in options):
        options.append((passing, None))             # passing: 0, the deal played by others or not at all
    return options if len(options) >= 2 else None


def bid_choices(state, seed: int, samples: int, solvers: dict | None = None):
    """The bids open to the seat to speak as (name, bid action) with their honest values (the hard bot's
    sampling), their exact values on the true deal (the solver) and their values from his view with his
    partner's five cards known (None where no deal fits: what a colluding pair bids on), or None when it has
    no choice (or may ask for a redeal, Kawesh: nothing hidden to judge)."""
    v = view(state, state.turn)
    options = bid_options(v)
    if options is None:
        return None
    k = Knowledge(v)
    rng = random.Random(_sampling_seed(v, seed))
    contracts = [c for _, c in options if c is not None]
    honest = contract_values(v, k, contracts, (rng.getrandbits(64) for _ in range(samples)),
                             lambda receiver, s: k.deal_after_contract(random.Random(s), receiver, v.dealer))
    solvers = {} if solvers is None else solvers
    guesses = [x / samples for x in honest]          # the honest estimates: the exact search's hints
    true = [contract_value(state, c, r, v.viewer, solvers, g) for (c, r), g in zip(contracts, guesses)]
    partner = _partner_bids(state, v, contracts, seed, samples)

    def spread(values, scale=1.0):
        it = iter(values)
        return [next(it) / scale if c is not None else 0.0 for _, c in options]

    return ([(_bid_name(a), a) for a, _ in options], spread(honest, samples), spread(true),
            None if partner is None else spread(partner, samples))


def _partner_bids(state, v, contracts, seed: int, samples: int) -> list[float] | None:
    """The contracts' values from the seat's view with his partner's five cards known (the rest of the pack
    dealt at random among the cards neither holds), or None where his view leaves no such deal."""
    partner = (v.viewer + 2) & 3
    held = state.hands[partner]
    k = knowing_partner(v, held)
    if k is None:
        return None
    rng = random.Random(_sampling_seed(v, seed) ^ 0x9E3779B9)
    faceup = parse_card(v.faceup)

    def deal(receiver, sample_seed):
        # His five cards and his partner's as they are; the opponents' five and the rest of the pack dealt at
        # random from the cards neither holds (the face-up card aside).
        rest = cards_of(k.pool)
        random.Random(sample_seed).shuffle(rest)
        hands = [0, 0, 0, 0]
        hands[v.viewer], hands[partner] = k.hand, held
        for s in range(4):
            if s not in (v.viewer, partner):
                for _ in range(5):
                    hands[s] |= 1 << rest.pop()
        deck = [0] * 32
        deck[20] = faceup
        deck[21:32] = rest
        return complete_deal(deck, v.dealer, tuple(hands), receiver)

    return contract_values(v, k, contracts, (rng.getrandbits(64) for _ in range(samples)), deal)


def double_choices(state, seed: int, samples: int, solvers: dict | None = None):
    """Pass or the next open double for the seat to speak, as (name, action) with their honest values and
    their exact values on the true hands (passing 0), or None when it has no such choice."""
    v = view(state, state.turn)
    passing = next((a for a in v.legal_actions if a.call == "pass"), None)
    call = next((a for a in v.legal_actions if a.call != "pass" and not a.closed), None)
    if passing is None or call is None:
        return None
    k = Knowledge(v)
    rng = random.Random(_sampling_seed(v, seed))
    raised = raised_contract(k.contract, call)
    honest, _ = double_gain(v, k, raised, (k.sample(rng)[0] for _ in range(samples)))
    solvers = {} if solvers is None else solvers
    true = (hands_value(state, raised, state.hands, v.viewer, solvers)
            - hands_value(state, k.contract, state.hands, v.viewer, solvers))
    return [("pass", passing), (call.call, call)], [0.0, honest / samples], [0.0, true]


def _bid_decision(state, index, event, seed, samples, margin, solvers) -> list[Decision]:
    choices = bid_choices(state, seed, samples, solvers)
    if choices is None:
        return []
    options, honest, true, partner = choices
    played = next((i for i, (_, a) in enumerate(options) if a.bid == event.bid
                   and (a.suit is None or a.suit == event.suit)), None)
    if played is None:
        return []
    d = _choice(index, event.seat, 0, [n for n, _ in options], played, honest, true, margin, "bid")
    return [_with_partner_values(d, partner, margin)]


def _with_partner_values(d: Decision, partner, margin: float) -> Decision:
    """The decision with its partner variant: the best knowing the partner's cards, telling where it is not
    the honest best and is worth ``margin`` more on the true hands."""
    if partner is None:
        return d
    p, h = best_of(partner), d.legal.index(d.honest_best)
    telling = p != h and d.true[p] - d.true[h] >= margin
    return msgspec.structs.replace(d, partner=tuple(partner), partner_best=d.legal[p], partner_telling=telling,
                                   followed_partner=telling and d.played == d.legal[p])


def _double_decision(state, index, event, seed, samples, margin, solvers) -> list[Decision]:
    choices = double_choices(state, seed, samples, solvers)
    if choices is None:
        return []
    options, honest, true = choices
    played = next((i for i, (n, _) in enumerate(options) if n == event.call), None)
    if played is None:
        return []
    return [_choice(index, event.seat, 0, [n for n, _ in options], played, honest, true, margin, "double")]


def _decision(state, v, plays, index, event, seed, samples, margin, solvers) -> Decision:
    k = Knowledge(v)
    honest = sampled_values(v, k, plays, seed, samples)
    true = _exact_cards(state, plays, solvers, honest)
    h, t = best_of(honest), best_of(true)
    played = next(i for i, a in enumerate(plays) if a.card == event.card)
    telling = true[t] - true[h] >= margin
    names = tuple(card_name(a.card) for a in plays)
    partner = partner_values(state, v, plays, seed, samples)
    p = best_of(partner) if partner is not None else None
    partner_telling = p is not None and p != h and true[p] - true[h] >= margin
    return Decision(index, event.seat, len(v.tricks) + 1, names, names[played], tuple(honest), tuple(true),
                    names[h], names[t], telling, telling and true[played] == true[t],
                    tuple(partner) if partner is not None else None, names[p] if p is not None else None,
                    partner_telling, partner_telling and played == p)


def sampled_values(v, k: Knowledge, plays, seed: int, samples: int) -> list[float]:
    rng = random.Random(_sampling_seed(v, seed))
    return [t / samples for t in card_values(v, k, plays, (k.sample(rng) for _ in range(samples)))]


def knowing_partner(v, partner_hand: int) -> Knowledge | None:
    """The seat's knowledge with its partner's hand shown to it (what a colluding pair knows), or None when
    no deal is left to sample (the partner's hidden declaration)."""
    k = Knowledge(v)
    partner = (k.me + 2) & 3
    if partner in k.hidden:
        return None
    k.known[partner] |= partner_hand
    k.pool &= ~partner_hand
    k.excluded = [x & ~partner_hand for x in k.excluded]
    return k


def partner_values(state, v, plays, seed: int, samples: int) -> list[float] | None:
    k = knowing_partner(v, state.hands[(v.viewer + 2) & 3])
    if k is None:
        return None
    try:
        return sampled_values(v, k, plays, seed, samples)
    except ValueError:                       # no deal fits: nothing to compare with
        return None


def record_events(record: HandRecord) -> list:
    """A hand record's deal replayed to its events (a record the engine refuses raises its rule error)."""
    state, events = step(INITIAL, record_start(record))
    for command in record_commands(record):
        state, new = step(state, command)
        events += new
    return events


def true_best_call(state):
    """The bid or double the seat to speak would choose seeing every hand, or None (no choice, or not
    bidding or doubling)."""
    choices = (bid_choices(state, 0, 1) if state.phase == "bidding"
               else double_choices(state, 0, 1) if state.phase == "doubling" else None)
    if choices is None:
        return None
    options, true = choices[0], choices[2]
    return options[best_of(true)][1]


def true_best_card(state, solvers: dict | None = None) -> PlayCard | None:
    """The card the seat to play would choose seeing every hand (the "ghost" the tests plant), or None when it
    has one legal card or is not playing a card."""
    v = view(state, state.turn)
    plays = _plays(v)
    if len(plays) < 2:
        return None
    return plays[best_of(_exact_cards(state, plays, {} if solvers is None else solvers))]


# The honest model: a player of some strength chooses among his options by their honest values (what he could
# know: the hard bot's sampling from his view), the better ones more often: with probability 1 - noise by a
# softmax of the honest values at ``temperature`` GP, else uniformly among them (a slip, a guess). Strength is
# the pair; each player's is fitted (maximum likelihood over the grid) on his decisions where the hidden cards
# did not matter (neither telling nor partner-telling): there a cheater plays as an honest player of his
# strength would, so his cheating does not lower the bar it is judged by.
TEMPERATURES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
NOISES = (0.05, 0.15, 0.3, 0.5)
GRID = tuple((t, e) for t in TEMPERATURES for e in NOISES)
# The cheating alternatives: a cheater uses the hidden cards on a share of his telling decisions (one of the
# true bests where he does, his honest self elsewhere); the evidence is the likelihood ratio mixed evenly over
# these shares, so that a full ghost and a cheater one time in ten are both tested without naming which.
SHARES = (0.1, 0.25, 0.5, 1.0)
MIN_TELLING = 10                 # no flag on fewer telling decisions of a variant, whatever the evidence
# The variants that raise a flag. The bids' evidence is reported but flags nobody: on the benchmark's honest
# populations an aggressive bidder of another engine's style gathers it (4 % of them past the line at 200
# deals, 22 % at 1,000: docs/fairplay.md), and no calibration on our own bots can know that style.
FLAGGING = ("true", "partner")
# The honest follow probability calibrated per variant and group: q = σ(a + b · logit(p)) for p the honest
# model's own share of the bests, (a, b) fitted on honest players of the three bot levels by
# ``bench/fairplay.py --fit`` on deals of their own (not those the benchmark then judges) and raised so that no
# level follows more often than it predicts: the model alone underrates how often honest players hit the true
# best (their own judgement knows more than the analysis' samples), which would flag them in the long run.
UNCALIBRATED = {("true", "cards"): (0.0, 1.0), ("partner", "cards"): (0.0, 1.0), ("partner", "calls"): (0.0, 1.0),
                ("bids", "calls"): (0.0, 1.0)}
# Fitted by ``bench/fairplay.py --fit`` on 70 deals of each bot level's calibration pool (seats 0 and 2).
CALIBRATION = {("true", "cards"): (0.481, 0.629), ("partner", "cards"): (-0.031, 0.484),
               ("partner", "calls"): (0.847, 0.932), ("bids", "calls"): (-0.317, 0.826)}


def choice_probabilities(values, temperature: float, noise: float) -> list[float]:
    """How likely an honest player of this strength picks each option valued ``values`` (GP, his view)."""
    top = max(values)
    weights = [math.exp((v - top) / temperature) for v in values]
    total = sum(weights)
    k = len(values)
    return [(1 - noise) * w / total + noise / k for w in weights]


# Kinds of decision judged apart: each has its own scale (a card's GP, a contract's) and so its own strength.
GROUPS = {"cards": ("card",), "calls": ("bid", "double")}
# variant: (the decisions' telling flag, the groups judged)
VARIANTS = {"true": ("telling", ("cards",)), "partner": ("partner_telling", ("cards", "calls")),
            "bids": ("telling", ("calls",))}


def _best_set(d: Decision, variant: str) -> list[int]:
    """The options a cheater of ``variant`` would choose: the true bests (exact values tie), or the best knowing
    the partner's hand."""
    if variant == "partner":
        return [d.legal.index(d.partner_best)]
    top = max(d.true)
    return [i for i, x in enumerate(d.true) if x == top]


def _fit_set(decisions, kinds) -> list[Decision]:
    """The decisions of ``kinds`` where the hidden cards did not matter (neither variant telling)."""
    return [d for d in decisions if d.kind in kinds and not d.telling and not d.partner_telling]


def group_of(d: Decision) -> str:
    return "cards" if d.kind == "card" else "calls"


def choice_loglik(d: Decision, strength: tuple[float, float]) -> float:
    """The log-likelihood of what he chose under the honest model at ``strength``."""
    return math.log(choice_probabilities(d.honest, *strength)[d.legal.index(d.played)])


def fit_strength(decisions, kinds=("card",)) -> tuple[float, float]:
    """The player's (temperature, noise): the grid's most likely on his decisions of ``kinds`` that no hidden
    card would have changed. With none, the weakest (the most forgiving of following the true hands)."""
    fit = _fit_set(decisions, kinds)
    if not fit:
        return GRID[-1]
    best, best_ll = GRID[-1], -math.inf
    for g in GRID:
        ll = sum(choice_loglik(d, g) for d in fit)
        if ll > best_ll:
            best, best_ll = g, ll
    return best


def follow_probability(d: Decision, variant: str, strength: tuple[float, float], calibration: dict | None = None
                       ) -> float:
    """How likely an honest player of ``strength`` chooses one of the decision's bests for ``variant`` (the
    true bests, or the best knowing his partner's hand): the honest model's share of them, calibrated
    (``CALIBRATION``) on honest players to how often such players really do."""
    probs = choice_probabilities(d.honest, *strength)
    p = min(max(sum(probs[i] for i in _best_set(d, variant)), 1e-9), 1 - 1e-9)
    a, b = (calibration or CALIBRATION)[(variant, group_of(d))]
    return 1 / (1 + math.exp(-(a + b * math.log(p / (1 - p)))))


def evidence_terms(d: Decision, variant: str, strength: tuple[float, float], calibration: dict | None = None
                   ) -> list[float]:
    """A telling decision's log-likelihood ratio, cheating on each share of ``SHARES`` against honest: a
    follow, log((e + (1 − e) q) / q) for q the honest follow probability; none, log(1 − e) (-inf for e = 1)."""
    return _log_ratios(_followed(d, variant), follow_probability(d, variant, strength, calibration))


def _followed(d: Decision, variant: str) -> bool:
    return d.legal.index(d.played) in _best_set(d, variant)


def _log_ratios(hit: bool, q: float) -> list[float]:
    if hit:
        return [math.log((e + (1 - e) * q) / q) for e in SHARES]
    return [math.log(1 - e) if e < 1 else -math.inf for e in SHARES]


class Evidence(msgspec.Struct, frozen=True):
    variant: str
    telling: int                   # the player's telling decisions of the variant
    followed: int                  # of which he chose a true best (the partner's best)
    expected: float                # how many an honest player of his strength would have followed
    gain: float                    # GP his choices gained over his own honest bests, on those decisions
    strength: tuple[float, float]  # his fitted (temperature, noise)
    evidence: float                # log of the likelihood ratio (cheating mixed over SHARES : honest)
    p_value: float                 # anytime-valid: P(evidence ever this high | honest) <= exp(-evidence)
    flagged: bool


def threshold(level: float, tests: int) -> float:
    """The evidence a flag needs so that ``tests`` honest players-and-variants, followed over every deal they
    ever play, raise at most ``level`` false flags between them: log(tests / level). The evidence is a
    likelihood ratio, a martingale for an honest player, so by Ville's inequality it ever reaches 1/α with
    probability at most α (Wald's SPRT bound, without an end to the test)."""
    return math.log(max(1, tests) / level)


def strengths(decisions) -> dict[str, tuple[float, float]]:
    """The player's strength in each group of decisions (``fit_strength``)."""
    return {g: fit_strength(decisions, kinds) for g, kinds in GROUPS.items()}


def judge(decisions, variant: str = "true", level: float = 0.01, tests: int = 1,
          strength: dict | None = None, calibration: dict | None = None) -> Evidence:
    """One player's decisions (``Decision``, his own, any number of deals) under ``variant`` ("true": cards
    following the true hands, a ghost; "partner": cards and bids following his partner's hand, a colluding
    pair; "bids": bids and doubles following the true hands): the accumulated evidence that he uses what he
    cannot see, against an honest player of his own strength; flagged above ``threshold(level, tests)`` with at
    least ``MIN_TELLING`` telling decisions. ``strength``: his strengths by group (``strengths``) when fitted on
    more decisions than these (the shared boards are judged with the strength of all his deals); ``calibration``
    another than ``CALIBRATION`` (none: ``UNCALIBRATED``, the honest model as it is)."""
    telling_of, groups = VARIANTS[variant]
    fitted = strength or strengths(decisions)
    logs = [0.0] * len(SHARES)
    n = followed = 0
    expected = gain = 0.0
    for d in decisions:
        group = group_of(d)
        if group not in groups or not getattr(d, telling_of):
            continue
        hit, q = _followed(d, variant), follow_probability(d, variant, fitted[group], calibration)
        n += 1
        followed += hit
        expected += q
        gain += d.true[d.legal.index(d.played)] - d.true[d.legal.index(d.honest_best)]
        logs = [x + t for x, t in zip(logs, _log_ratios(hit, q))]
    top = max(logs)
    evidence = top + math.log(sum(math.exp(x - top) for x in logs) / len(logs)) if n and top > -math.inf else 0.0
    return Evidence(variant, n, followed, expected, gain, fitted[groups[0]], evidence,
                    min(1.0, math.exp(-evidence)),
                    variant in FLAGGING and n >= MIN_TELLING and evidence >= threshold(level, tests))


def partner_best_card(state, seed: int = 0, samples: int = 24) -> PlayCard | None:
    """The card the seat to play would choose knowing its partner's hand (the colluder the tests plant)."""
    v = view(state, state.turn)
    plays = _plays(v)
    if len(plays) < 2:
        return None
    values = partner_values(state, v, plays, seed, samples)
    return plays[best_of(values)] if values is not None else None


def play_deal(seed: str, choose, dealer: int = 0) -> list:
    """A deal from ``seed`` played to its end, each action by ``choose(state)`` (the whole state: the
    planted cheaters of the tests and benchmarks read the hidden hands; an honest player is
    ``lambda state: bot.choose(view(state, state.turn))``); its events."""
    state, events = step(INITIAL, StartDeal(dealer=dealer, seed=seed))
    while state.phase not in ("scored", "void"):
        state, new = step(state, RecordResult() if state.phase == "review" else choose(state))
        events += new
    return events


def planted(players, cheats: dict[int, str], share: float = 1.0, seed: int = 0, samples: int = 16):
    """``choose(state)`` for ``play_deal``: each seat played by ``players[seat]`` (a bot), but the seats of
    ``cheats`` cheat on a share ``share`` of their card choices (drawn from ``seed``): "ghost" plays the true
    best card (and the bid or double best on the true hands), "partner" the best card knowing its partner's hand
    (a colluding pair: both partners so; its own sampling seeded from ``seed``, as the hard bot's). The planted cheaters of the tests and the benchmark
    (bench/fairplay.py)."""
    rng = random.Random(seed)
    solvers: dict = {}               # the exact searches of the deal being played

    def choose(state):
        seat = state.turn
        kind = cheats.get(seat)
        if solvers.get("deck") != state.deck:
            solvers.clear()
            solvers["deck"] = state.deck
        if kind is not None and rng.random() < share:
            action = (true_best_card(state, solvers) if state.phase == "playing" and kind == "ghost"
                      else partner_best_card(state, seed=seed, samples=samples) if state.phase == "playing"
                      else true_best_call(state) if kind == "ghost" else None)
            if action is not None:
                return action
        return players[seat].choose(view(state, seat))

    return choose
