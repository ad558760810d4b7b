"""What each card a player may play is worth from his own view: the hidden cards sampled as he could see them,
each sample solved exactly, the values averaged (the review's marks, domain/baloot/review.py).

**Why not the rollouts.** The fair-play analysis' ``honest`` values (domain/baloot/fairplay.py) play each
sampled deal out with the hard bot's policy: a card is worth what the bot makes of the rest of the deal, and
the bot's mistakes after it become the card's. On the hand-made Sun deal of tests/engine/test_review.py they
rate leading 7♦ from A♦ 7♦ at trick 1 at +26 GP where the exact solver on the true hands says −26 (the buyer
fails), so a review built on them marks the right lead a blunder. The strongest engines of hidden-card games
(GIB in bridge, the PIMC players of Skat) value a choice the other way: deals of the hidden cards consistent
with the player's view are drawn, **each is solved exactly** with every hand open (here the project's one
perfect-information solver, domain/baloot/solver.py), and each card's values are averaged over the deals.
Perfect play on a sampled deal is optimistic for both sides (everyone sees everything: "strategy fusion"),
but it is the same for every card of the choice, and a card's value no longer depends on a bot's later play.

**What goes in.** Only the seat's view (``views.view(state, seat)``): ``Knowledge``, the hard bot's sampler,
deals the hidden cards (the voids and failures to trump the play proves, the face-up card's taker, the shown
and hidden declarations), seeded from ``seed`` and the view less the deal's commitment (``fairplay``'s
``_sampling_seed``), never from the deck: two positions that look the same to the seat get the same values.
Every card of a choice is valued on the same samples (common random numbers: the differences between cards,
which the review reads, are far less noisy than the values). The position of each sample is built as the
evaluation bar builds a spectator's (``evaluation._public_state``) with the sample's hands and declarations.

**Declarations** are counted as the solver's ``outcomes`` counts them for the seat to play: those made (the
hidden ones as sampled), and in trick 1 every later seat that has neither declared nor played declares its
best set on the sampled hands; Baloot for the holders of trump K and Q.

**Values.** Each legal card, in the order of ``bots.simple._plays`` (the analysis' ``legal``), with the mean of
its exact GP margin (the seat's team's GP of the deal less the other's) over the samples.

**Cost** (bench/viewvalues.py). A fresh deal is solved per sample (no table serves another deal), each card
by null-window tests of the margins the play can end in, started from a level it is likely at. The previous
card's level on the same sample is the best such hint measured (the solver's default): on 14 positions of
tricks 1-2 of normal bots' deals, 16.0 s against 18.1 s from the same card's value on the previous sample and
20.1 s from the rollouts' honest values (they are biased, which is the point of this module), so
``view_values`` gives none; ``guesses`` remains for a caller with better ones. The solvers are kept by
eight-card hands and contract (the analysis' and the bar's key) for one position after their own: a deal drawn
twice (late in the deal, few cards hidden) or again at the next position is not searched anew. Tables of
earlier positions are dropped: a trick-1 table holds up to ~100,000 entries and is almost never met again.

**Bids and doubles** (``view_call_values``) are valued the same way, for the decisions and options of the
analysis' ``bid_choices`` / ``double_choices`` (``bid_options``, ``double_options``: the same lists, names and
order). A bid: each contract it makes, on ``samples`` deals of the rest of the pack drawn from the bidder's view
(``Knowledge.deal_after_contract``, one sample seed a deal, the same deal for every contract whose buyer's side
takes the face-up card alike), solved from its first card (``solver.hands_value``: every seat declaring its best
projects); a pass is 0 unless it leaves a contract ("before you": that contract's value), as the analysis has
it. A double: the raised contract's value less the current one's on the same samples of the hidden cards
(``Knowledge.sample``), pass 0. The rollouts undervalue Sun (the hard bot's play of a Sun is weak, so Sun is
worth little in its rollouts): on the review's planted Sun they value it below passing, solved it is worth
buying. **Cost**: a contract solved from the first card is one search of the whole deal (~100 ms compiled),
a bid decision 2-5 contracts per sample; the searches of one sample are kept together (``hands_value``'s
``solvers``: a double's raised contract reuses the current one's table, ~10 % of its search saved; contracts
of other trumps share nothing). ``hands_value``'s ``guess`` was measured (the same contract's value on the
previous sample, the mean so far, the current value scaled by the multiplier): no gain (86.0 s against 85.9 /
84.7 / 85.6 s on 33 bid decisions, 16.8 / 17.1 / 16.8 s on 10 doubles), so none is given.
"""

from __future__ import annotations

import random

from msgspec.structs import replace

from domain.baloot.bots.hard import raised_contract
from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.bots.simple import _plays
from domain.baloot.deal import INITIAL, evolve
from domain.baloot.dealstate import DealState, speaking_order
from domain.baloot.evaluation import _public_state
from domain.baloot.events import BidMade, CardPlayed, DoubleCalled
from domain.baloot.fairplay import _bid_name, _sampling_seed, bid_options
from domain.baloot.solver import card_values, hands_value, solver_for
from domain.baloot.views import view

__all__ = ["view_bid_values", "view_call_values", "view_card_values", "view_double_values", "view_values"]

def view_card_values(state, seed: int, samples: int = 8, solvers: dict | None = None, guesses=None
                     ) -> list[tuple[int, float]]:
    """Each legal card of the seat to play in ``state`` (a deal in play) with its mean exact GP margin for
    the seat's team over ``samples`` deals of the hidden cards drawn from the seat's view (see the module's
    docstring): [(card, value), …] in the order of ``_plays(view(state, seat))``. ``solvers``: a dict kept
    across positions (one per deal or analysis: solvers by eight-card hands and contract, reused when a deal
    is sampled again); ``guesses``: {card: a value it is likely near} or values in that order (e.g. the
    analysis' honest values), only to make the search faster. Only the view is read, never the hidden
    hands."""
    seat = state.turn
    v = view(state, seat)
    plays = _plays(v)
    if not plays:
        return []
    cards = [a.card for a in plays]
    if guesses is not None and not isinstance(guesses, dict):                 # values in the plays' order
        guesses = dict(zip(cards, guesses))
    k = Knowledge(v)
    rng = random.Random(_sampling_seed(v, seed))
    base = _public_state(v, k)
    kept = {} if solvers is None else solvers.get("view", {})
    used: dict = {}
    totals = dict.fromkeys(cards, 0.0)
    for _ in range(samples):
        hands, declared = k.sample(rng)
        s = replace(base, hands=hands, declared=declared)
        key = (tuple(h | p for h, p in zip(s.hands, s.played)), s.trump, s.contract.closed)
        solver = used.get(key) or kept.get(key) or solver_for(s)
        used[key] = solver
        for c, x in card_values(s, solver, guesses):
            totals[c] += x
    if solvers is not None:
        solvers["view"] = used               # the searches the next position may reuse: this position's
    n = float(samples)
    return [(c, totals[c] / n) for c in cards]


def view_values(events, seed: int, samples: int = 8, seats=(0, 1, 2, 3), hints: dict | None = None
                ) -> dict[int, tuple[float, ...]]:
    """The sampled-and-solved values of every card decision of a played deal (its events from the deal's
    start, as ``fairplay.analyse_deal`` takes them): for each card played by one of ``seats`` among two or
    more legal cards (the decisions ``analyse_deal(kinds=("card",))`` makes), the index of its event → each
    legal card's value (``view_card_values``) in the order of the decision's ``legal``. ``hints``: index →
    values in that order to start the searches from (``guesses``; see the module's docstring: the rollouts'
    honest values are worse hints than none). The same events and seed
    give the same values."""
    state, out = INITIAL, {}
    solvers: dict = {}
    for index, event in enumerate(events):
        if isinstance(event, CardPlayed) and state.phase == "playing" and event.seat in seats:
            plays = _plays(view(state, event.seat))
            if len(plays) > 1:
                guess = None if hints is None else hints.get(index)
                values = view_card_values(state, seed, samples, solvers, guess)
                out[index] = tuple(x for _, x in values)
        state = evolve(state, event)
    return out


# ------------------------------------------------------------------ bids and doubles


def _table(v) -> DealState:
    """What ``solver.hands_value`` reads of a deal's state besides the hands, from the view: the rules, the
    speaking order and the scores before the deal (a Gahwa's value is the game's)."""
    return DealState(profile=v.rules, dealer=v.dealer, order=speaking_order(v.dealer),
                     scores_before=tuple(v.scores_before))


def view_bid_values(state, seed: int, samples: int = 8) -> list[tuple[str, float]] | None:
    """Each bid open to the seat to speak in ``state`` (bidding) with its mean exact GP margin for the seat's
    team over ``samples`` deals of the rest of the pack drawn from his view (``Knowledge.deal_after_contract``,
    one sample seed a deal as ``fairplay.bid_choices`` draws them: the same deal for every contract with the same
    receiver of the face-up card), each contract solved from its first card (``solver.hands_value``: every
    seat declaring its best projects); a pass 0 unless it leaves a contract (Sun "before you": valued as
    that contract). [(name, value), …] in ``bid_choices``' order and names, or None where it values none.
    Only the view is read."""
    v = view(state, state.turn)
    options = bid_options(v)
    if options is None:
        return None
    k = Knowledge(v)
    rng = random.Random(_sampling_seed(v, seed))
    seeds = [rng.getrandbits(64) for _ in range(samples)]
    table = _table(v)
    me = v.viewer
    totals = [0.0] * len(options)
    for sample_seed in seeds:
        dealt: dict = {}
        solvers: dict = {}                  # this sample's searches: by hands and play rules
        done: dict = {}
        for i, (_, cr) in enumerate(options):
            if cr is None:
                continue
            if cr not in done:
                contract, receiver = cr
                if receiver not in dealt:
                    dealt[receiver] = k.deal_after_contract(random.Random(sample_seed), receiver, v.dealer)
                done[cr] = hands_value(table, contract, dealt[receiver], me, solvers)
            totals[i] += done[cr]
    n = float(samples)
    return [(_bid_name(a), t / n) for (a, _), t in zip(options, totals)]


def double_options(v) -> tuple | None:
    """(pass action, the next open double) for the viewer of ``v`` (doubling, his turn), as
    ``fairplay.double_choices`` takes them, or None."""
    passing = next((a for a in v.legal_actions if a.call == "pass"), None)
    call = next((a for a in v.legal_actions if a.call != "pass" and not a.closed), None)
    return None if passing is None or call is None else (passing, call)


def view_double_values(state, seed: int, samples: int = 8) -> list[tuple[str, float]] | None:
    """Pass (0) and the next open double for the seat to speak in ``state`` (doubling), the double valued as
    ``fairplay.double_choices`` values it (the raised contract's value less the current one's) with each
    contract solved from its first card on ``samples`` deals of the hidden cards drawn from the seat's view
    (``Knowledge.sample``), both on the same deals and the same search: [("pass", 0.0), (call, gain)], or
    None where there is no such choice. Only the view is read."""
    v = view(state, state.turn)
    options = double_options(v)
    if options is None:
        return None
    _, call = options
    k = Knowledge(v)
    rng = random.Random(_sampling_seed(v, seed))
    raised = raised_contract(k.contract, call)
    table = _table(v)
    me = v.viewer
    gain = 0.0
    for _ in range(samples):
        hands = k.sample(rng)[0]
        solvers: dict = {}                  # one search for both contracts where the play rules stay
        now = hands_value(table, k.contract, hands, me, solvers)
        gain += hands_value(table, raised, hands, me, solvers) - now
    return [("pass", 0.0), (call.call, gain / float(samples))]


def view_call_values(events, seed: int, samples: int = 8, seats=(0, 1, 2, 3)) -> dict[int, tuple[float, ...]]:
    """The sampled-and-solved values of every bid and double decision of a played deal (its events from the
    deal's start): for each bid or double of one of ``seats`` that ``fairplay.analyse_deal(kinds=("bid",
    "double"))`` makes a decision of, the index of its event → each option's value (``view_bid_values``,
    ``view_double_values``) in the order of the decision's ``legal``. The same events and seed give the same
    values."""
    state, out = INITIAL, {}
    for index, event in enumerate(events):
        if getattr(event, "seat", None) in seats:
            if isinstance(event, BidMade) and state.phase == "bidding":
                v = view(state, state.turn)
                options = bid_options(v)
                if options is not None and any(a.bid == event.bid and (a.suit is None or a.suit == event.suit)
                                               for a, _ in options):
                    out[index] = tuple(x for _, x in view_bid_values(state, seed, samples))
            elif isinstance(event, DoubleCalled) and state.phase == "doubling":
                options = double_options(view(state, state.turn))
                if options is not None and event.call in ("pass", options[1].call):
                    out[index] = tuple(x for _, x in view_double_values(state, seed, samples))
        state = evolve(state, event)
    return out
