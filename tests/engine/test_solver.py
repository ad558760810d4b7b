"""The exact solver (domain/baloot/solver.py): its values are those of a plain minimax through the engine's own
``step`` and ``deal_result`` (every legal card tried, no pruning, no table), and the score is a non-decreasing
function of the value it searches, on every contract, double and project, which is what makes searching that
value exact."""

from __future__ import annotations

import bisect
import itertools
import random

from msgspec.structs import replace

from domain.baloot.bidding import complete_deal
from domain.baloot.bots import bot
from domain.baloot.cards import cards_of
from domain.baloot.deal import INITIAL, step
from domain.baloot.events import Contract, PlayCard, RecordResult, StartDeal
from domain.baloot.play import baloot_allowed, play_mask
from domain.baloot.projects import best_declaration
from domain.baloot.solver import (
    NO_LIMIT, Outcomes, SearchLimit, Solver, card_values, contract_value, outcomes, solver_for,
)
from domain.baloot.tricks import legal_plays
from domain.baloot.views import view


def positions(seed: str, trick_no: int, count: int = 3):
    """States of a deal played by normal bots, at its tricks from ``trick_no`` on (a few cards in)."""
    bots = [bot("normal") for _ in range(4)]
    state, _ = step(INITIAL, StartDeal(dealer=0, seed=seed))
    out = []
    while state.phase not in ("scored", "void", "review"):
        if state.phase == "playing" and state.trick_no >= trick_no and len(out) < count:
            if play_mask(state, state.turn).bit_count() > 1:
                out.append(state)
        state, _ = step(state, bots[state.turn].choose(view(state, state.turn)))
    return out


def brute(state) -> float:
    """Team 0's GP margin with perfect play from ``state``, by trying every legal card through the engine
    (announcing Baloot whenever it may: it only adds to the side's score)."""
    if state.phase in ("review", "scored"):
        if state.phase == "review":
            state, _ = step(state, RecordResult())
        gp = state.result.game_points
        return gp[0] - gp[1]
    seat = state.turn
    values = []
    for c in cards_of(play_mask(state, seat)):
        after, _ = step(state, PlayCard(seat, c, baloot_allowed(state, seat, c)))
        values.append(brute(after))
    return max(values) if seat & 1 == 0 else min(values)


def test_the_solver_gives_each_card_the_value_of_a_plain_search_through_the_engine():
    # Each position as played and with its contract doubled (a Kaboot is not doubled: there the sweep scores
    # less than a plain win for the side that makes it, which the solver must rank as the score does).
    checked = general = 0
    for n in range(14):
        for played in positions(f"solver-{n}", 5, 2):
          for state in (played, replace(played, contract=replace(played.contract, multiplier=2)),
                        replace(played, contract=replace(played.contract, multiplier=2),
                                baloot_seats=(1,) if played.trump >= 0 else ())):
            seat = state.turn
            score = outcomes(state, seat)
            score.levels()
            general += score.inexact                # searched on the score itself (Solver.exact)
            for card, margin in card_values(state):
                after, _ = step(state, PlayCard(seat, card, baloot_allowed(state, seat, card)))
                expected = brute(after)
                assert margin == (expected if seat & 1 == 0 else -expected), (n, card)
                checked += 1
    assert checked >= 120 and general >= 3, (checked, general)


def test_a_search_stopped_at_its_node_limit_raises_and_leaves_the_solver_true():
    # Early in a deal (trick 2) a search takes thousands of nodes: a limit of 50 stops it with SearchLimit;
    # the same solver, the limit lifted, then gives every card the values a fresh solver gives.
    stopped = 0
    states = [p for n in range(12) for p in positions(f"limit-{n}", 1, 1)][:4]     # deals bought, not thrown in
    for n, state in enumerate(states):
        fresh = card_values(state)
        solver = solver_for(state)
        solver.limit = 50
        try:
            card_values(state, solver)
        except SearchLimit:
            stopped += 1
            assert solver.nodes == 50                          # it stopped at the limit, not after
        solver.limit = NO_LIMIT
        assert card_values(state, solver) == fresh, n
    assert stopped == 4


def test_every_outcome_scores_the_margin_its_search_value_ranks_it_at():
    # Every contract, each multiplier and the Gahwa, with and without projects and Baloot, from the deal's
    # start and from positions part played (a sweep still open to either side, or to neither): each outcome
    # the play can reach, given its search value (four times its value; a sweep, the value standing for it), reads
    # the margin the engine scores for it off the levels. Plain outcomes alone never score less as team 0
    # takes more.
    state = positions("solver-monotone", 2, 1)[0]
    contracts = [Contract("sun", None, b, ashkal) for b in (0, 1) for ashkal in (False, True)]
    contracts += [Contract("hokum", s, b) for s in range(4) for b in (0, 1)]
    raised = [replace(c, multiplier=m) for c in contracts for m in (2, 3, 4)] + [replace(c, gahwa=True)
                                                                                  for c in contracts]
    sequences = [(), ((1, ((0, 1, 2),)),), ((0, ((8, 9, 10, 11),)), (3, ((16, 17, 18),)))]
    checked = inexact = 0
    for contract, declared, baloot in itertools.product(contracts + raised, sequences, ((), (0,), (3,))):
        trump = contract.suit if contract.kind == "hokum" else -1
        if baloot and trump < 0:
            continue                                # Baloot is trump's K and Q: none in Sun
        for points, tricks, left in (((0, 0), (0, 0), 8), ((40, 22), (2, 1), 5), ((0, 31), (0, 2), 6),
                                     ((45, 0), (3, 0), 5)):
            s = replace(state, contract=contract, trump=trump, points=points, tricks=tricks)
            total = (162 if trump >= 0 else 130) - sum(points)
            o = Outcomes(s, declared, baloot, total, left)
            margins, thresholds, low, high = o.levels()
            if o.inexact:
                # Known and named: only a doubled deal where the other side's Baloot goes to whoever takes
                # a deal decided on equal GP.
                assert (contract.multiplier > 1 or contract.gahwa) and baloot, (contract, declared, baloot)
                inexact += 1
                continue
            top = 9 * total + left
            # The outcomes a play can reach: no trick; some abnat short of all with a trick or more but not all
            # of them (the last trick alone is worth 10); all the abnat with one trick or more.
            reach = [0] + [9 * a + t for a in range(total) for t in range(1, left)] + [
                9 * total + t for t in range(1, left + 1)]
            plain = []
            for v in reach:
                if v == 0 and tricks[0] == 0:
                    w = low
                elif v == top and tricks[1] == 0:
                    w = 4 * top + high
                else:
                    w = 4 * v
                    plain.append(o.margin(v))
                assert margins[bisect.bisect_right(thresholds, w) - 1] == o.margin(v), (contract, points, v)
            assert plain == sorted(plain), (contract, declared, baloot, points)
            checked += 1
    assert checked > 300 and inexact < checked / 4, (checked, inexact)


def test_a_contracts_exact_value_is_its_played_out_value_with_the_hands_open():
    # In bidding, a contract's value on the true deal: the same as the solver's value of the deal's first
    # position once bought (the hands dealt out as they lie).
    rng = random.Random(4)
    for n in range(3):
        state, _ = step(INITIAL, StartDeal(dealer=n, seed=f"contract-{n}"))
        seat = state.turn
        suit = rng.randrange(4)
        contract = Contract("hokum", suit, seat)
        value = contract_value(state, contract, seat, seat)
        hands = complete_deal(state.deck, state.dealer, state.first_five, seat)
        leader = state.order[0]
        own = best_declaration(leader, hands[leader], state.profile.projects, False)
        playing = replace(state, phase="playing", contract=contract, trump=suit, hands=hands, leader=leader,
                          turn=leader, declared=((leader, own),) if own else ())
        best = max(m for _, m in card_values(playing))          # the leader's side's margin
        assert value == (best if leader & 1 == seat & 1 else -best), n


def test_the_searchs_own_legal_cards_are_the_rules_legal_cards():
    # The search's play rules (Solver._legal) against the engine's (tricks.legal_plays), on random hands and
    # tricks, every trump, closed or not, every exemption and undertrump switch.
    rng = random.Random(11)
    checked = 0
    for _ in range(4000):
        cards = rng.sample(range(32), 12)
        n = rng.randrange(4)
        trick, hand = tuple(cards[:n]), sum(1 << c for c in cards[n:n + rng.randrange(1, 9)])
        trump = rng.choice((-1, 0, 1, 2, 3))
        closed, undertrump = rng.random() < 0.3, rng.random() < 0.5
        exemption = rng.choice(("always", "void_only", "fourth_seat_or_ace"))
        solver = Solver(trump, closed, exemption, undertrump)
        assert solver._legal(hand, trick, solver._win(trick), n) == legal_plays(
            hand, trick, trump, closed, exemption, undertrump), (hand, trick, trump, closed, exemption)
        checked += 1
    assert checked == 4000
