"""The evaluation bar (domain/baloot/evaluation.py): hands open it is the exact value of the position, checked
against the independent solver of the fair-play test populations (bench/fairplay_players.py) and against
``hands_value`` before the first card; a locked deal shows its Kaboot; the public evaluation reads nothing
hidden (two deals a spectator cannot tell apart get the same bar, and where counting leaves one card hidden
it is the exact value); the same state and seed give the same evaluation; the turning point of a curve."""

from __future__ import annotations

import functools

from msgspec.structs import replace

from bench.fairplay_players import exact_card_values, table
from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.deal import INITIAL, legal_actions, step
from domain.baloot.evaluation import (
    Evaluation, _values, deal_curve, evaluate, outcome_result, public_evaluation, turning_point,
)
from domain.baloot.events import Bid, CardPlayed, Declare, Double, RecordResult, StartDeal
from domain.baloot.solver import hands_value, outcomes
from domain.baloot.views import view
from domain.errors import DomainError
from tests.engine.given import given_deal, play_out, when

SAMPLES = 8


@functools.cache
def played(seed: str, dealer: int = 0) -> tuple:
    """A deal dealt from a fixed deck order (no commitment) played by the test populations' players: its
    deck, the commands and the states before each command."""
    from domain.baloot.shuffle import deck_from_seed
    deck = tuple(deck_from_seed(seed))
    choose = table(("noisy", "normal", "heuristic", "normal"), seed=len(seed))
    state, _ = step(INITIAL, StartDeal(dealer=dealer, deck=deck))
    commands, states = [], []
    while state.phase not in ("scored", "void"):
        cmd = RecordResult() if state.phase == "review" else choose(state)
        commands.append(cmd)
        states.append(state)
        state, _ = step(state, cmd)
    states.append(state)
    return deck, tuple(commands), tuple(states)


def _deals():
    """Played deals with a contract (a void one has nothing to evaluate)."""
    out = []
    n = 0
    while len(out) < 3:
        deck, commands, states = played(f"evaluation-{n}", n % 4)
        n += 1
        if states[-1].phase == "scored":
            out.append((deck, commands, states))
    return out


def test_hands_open_it_is_the_independent_solvers_value_of_the_movers_best_card():
    checked = 0
    for _, _, states in _deals():
        solvers: dict = {}
        for s in states:
            if s.phase == "doubling" or (s.phase == "playing" and s.trick_no == 0 and not s.trick):
                e = evaluate(s, hands_open=True, solvers=solvers)
                assert e.margin == hands_value(s, s.contract, tuple(h | p for h, p in zip(s.hands, s.played)), 0)
            if s.phase != "playing" or s.trick_no < 2:
                continue                          # the independent solver is slow on full hands
            e = evaluate(s, hands_open=True, solvers=solvers)
            best = max(exact_card_values(s).values())             # for the mover's team
            assert e.margin == (best if s.turn & 1 == 0 else -best), (s.trick_no, s.trick)
            assert e.exact and e.scores[0] - e.scores[1] == e.margin and e.made in (0.0, 1.0)
            checked += 1
    assert checked > 50


def test_one_margin_is_one_result_on_played_positions():
    # The solver finds a margin; the scores and ``made`` are read from an outcome scoring it: sound only if
    # every outcome of the same margin gives the same GP and the same verdict.
    for _, _, states in _deals():
        for s in states:
            if s.phase != "playing" or s.trick:
                continue
            score = outcomes(s, -1)
            seen: dict = {}
            for value in _values(score):
                r = outcome_result(score, value)
                result = (r.game_points, r.failed)
                assert seen.setdefault(score.margin(value), result) == result


def test_the_last_card_and_the_result_are_the_deals_result():
    for _, _, states in _deals():
        final = states[-1]
        gp = final.result.game_points
        for hands_open in (True, False):
            e = evaluate(final, hands_open=hands_open)
            assert e == Evaluation(float(gp[0] - gp[1]), (float(gp[0]), float(gp[1])),
                                   0.0 if final.result.failed else 1.0, True)
    assert evaluate(INITIAL, hands_open=True) is None
    assert evaluate(_deals()[0][2][0], hands_open=False) is None          # bidding: no contract yet


# Seat 0 (first to speak, dealer 3) buys Sun holding every Ace and Ten: he leads and keeps the lead.
LOCKED = ["AS TS AH TH AD TD AC TC", "KS QH JD 9C 8S 7H KD QC", "QS JH 9D 8C 7S KH QD JC",
          "JS 9H 8D 7C KC 9S 8H 7D"]


def test_a_deal_whose_buyer_holds_every_trick_shows_made_and_the_kaboot():
    state = given_deal(dealer=3, hands=LOCKED, faceup="AS", receiver=0)
    state = when(state, Bid(0, "sun"))
    while state.phase == "bidding":
        state = when(state, Bid(state.turn, "pass"))
    while state.phase == "doubling":
        state = when(state, Double(state.turn, "pass"))
    # He declares his four Aces (the evaluation takes every seat to declare its best).
    declared = when(state, next(a for a in legal_actions(state, 0) if isinstance(a, Declare)))
    final = play_out(declared)
    final, _ = step(final, RecordResult()) if final.phase == "review" else (final, None)
    assert final.result.kaboot and not final.result.failed
    gp = final.result.game_points
    solvers: dict = {}
    for s in (state, declared, play_out(declared, 3), play_out(declared, 6)):
        e = evaluate(s, hands_open=True, solvers=solvers)
        assert e.made == 1.0 and e.exact
        assert e.scores == (float(gp[0]), float(gp[1])) and e.scores[0] >= 44


# ---------------------------------------------------------------- what the public evaluation may read


def _swapped(deck, commands, upto: int):
    """Another deck whose deal, replayed with the same ``commands[:upto]``, shows a spectator exactly the same
    (two cards of two seats exchanged, not the face-up card, every command still legal), preferring one where
    the hands-open evaluation differs; None if there is none."""
    state = _replay(deck, commands, upto)
    fallback = None
    for i in range(32):
        for j in range(i + 1, 32):
            a, b = deck[i], deck[j]
            if 20 in (i, j):
                continue
            if not (any(h >> a & 1 for h in state.hands) and any(h >> b & 1 for h in state.hands)):
                continue                       # both still hidden in hands at the position
            if next(x for x in range(4) if state.hands[x] >> a & 1) == next(x for x in range(4)
                                                                              if state.hands[x] >> b & 1):
                continue
            other = list(deck)
            other[i], other[j] = b, a
            try:
                twin = _replay(tuple(other), commands, upto)
            except DomainError:
                continue
            if view(twin, None, hands="never") != view(state, None, hands="never"):
                continue
            if (evaluate(twin, hands_open=True).margin != evaluate(state, hands_open=True).margin):
                return state, twin
            fallback = fallback or (state, twin)
    return fallback


def _replay(deck, commands, upto: int):
    state, _ = step(INITIAL, StartDeal(dealer=_dealer_of(commands), deck=tuple(deck)))
    for cmd in commands[:upto]:
        state, _ = step(state, cmd)
    return state


def _dealer_of(commands) -> int:
    return (commands[0].seat - 1) & 3          # the first to speak sits right of the dealer


def test_two_deals_a_spectator_cannot_tell_apart_get_the_same_public_evaluation():
    pairs = telling = 0
    for deck, commands, states in _deals()[:2]:
        cards = [k for k, c in enumerate(commands) if type(c).__name__ == "PlayCard"]
        for upto in (cards[5], cards[13]):        # trick 2 and trick 4, mid-trick
            found = _swapped(deck, commands, upto)
            if found is None:
                continue
            a, b = found
            assert a.hands != b.hands
            telling += evaluate(a, hands_open=True) != evaluate(b, hands_open=True)     # the bar could leak
            assert evaluate(a, hands_open=False, seed=3, samples=SAMPLES) == \
                evaluate(b, hands_open=False, seed=3, samples=SAMPLES)
            pairs += 1
    assert pairs >= 2 and telling >= 1


def test_the_public_evaluation_is_computed_from_the_spectators_view_alone():
    _, _, states = _deals()[0]
    s = next(x for x in states if x.phase == "playing" and x.trick_no == 3 and len(x.trick) == 1)
    v = view(s, None, hands="never")
    assert v.hand is None and v.hands is None and v.seed is None
    assert public_evaluation(v, seed=5, samples=SAMPLES) == evaluate(s, hands_open=False, seed=5, samples=SAMPLES)


def test_with_one_card_left_hidden_the_public_evaluation_is_the_exact_one():
    for _, _, states in _deals():
        s = next(x for x in states if x.phase == "playing" and x.trick_no == 7 and len(x.trick) == 3)
        public, exact = evaluate(s, hands_open=False, samples=4), evaluate(s, hands_open=True)
        assert not public.exact and exact.exact
        assert (public.margin, public.scores, public.made) == (exact.margin, exact.scores, exact.made)


def test_a_spectators_knowledge_samples_deals_consistent_with_the_true_one():
    import random
    for _, _, states in _deals():
        for s in states:
            if s.phase != "playing" or s.trick_no not in (0, 3) or len(s.trick) != 2:
                continue
            k = Knowledge(view(s, None, hands="never"))
            assert k.me is None and k.hand == 0
            assert k.check(s.hands, s.declared) == []            # the truth is one of the deals it samples
            rng = random.Random(1)
            for _ in range(8):
                hands, declared = k.sample(rng)
                assert k.check(hands, declared) == []
                assert [h.bit_count() for h in hands] == [h.bit_count() for h in s.hands]


# ---------------------------------------------------------------- determinism, the curve, the turning point


def test_the_same_state_and_seed_give_the_same_evaluation():
    _, _, states = _deals()[1]
    s = next(x for x in states if x.phase == "playing" and x.trick_no == 2)
    first = evaluate(s, hands_open=False, seed=7, samples=SAMPLES)
    assert evaluate(s, hands_open=False, seed=7, samples=SAMPLES, solvers={}) == first
    assert evaluate(replace(s), hands_open=False, seed=7, samples=SAMPLES) == first
    assert 0.0 <= first.made <= 1.0 and not first.exact


def test_the_curve_runs_from_the_contract_to_the_last_card():
    deck, commands, states = _deals()[0]
    events = []
    state = INITIAL
    state, new = step(state, StartDeal(dealer=_dealer_of(commands), deck=deck))
    events += new
    for cmd in commands:
        state, new = step(state, cmd)
        events += new
    curve = deal_curve(events, hands_open=True)
    kinds = [type(events[i]).__name__ for i, _ in curve]
    assert kinds[0] == "ContractFixed" and kinds.count("CardPlayed") == sum(isinstance(e, CardPlayed) for e in events)
    assert kinds[-1] == "CardPlayed" or kinds[-1] == "SawaClaimed"
    assert all(e.exact for _, e in curve)
    gp = state.result.game_points
    assert curve[-1][1].margin == gp[0] - gp[1]
    assert [i for i, _ in curve] == sorted(i for i, _ in curve)
    assert deal_curve(events, hands_open=True) == curve
    assert turning_point(curve) is None or turning_point(curve) in [i for i, _ in curve]
    cards = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    assert {i for i, _ in curve} >= set(cards)


def _e(margin: float, made: float) -> Evaluation:
    return Evaluation(margin, (max(margin, 0.0), max(-margin, 0.0)), made, False)


def test_the_turning_point_is_the_largest_move_of_the_buyers_chance_then_of_the_margin():
    curve = [(3, _e(4, 0.5)), (5, _e(6, 0.75)), (9, _e(-10, 0.25)), (12, _e(-12, 0.0)), (14, _e(20, 0.5))]
    assert turning_point(curve) == 14                      # 0.0 -> 0.5 ties 0.75 -> 0.25, and moves 32 GP
    curve = [(3, _e(4, 0.5)), (5, _e(6, 0.75)), (9, _e(-10, 0.25)), (12, _e(-10, 0.75))]
    assert turning_point(curve) == 9                       # equal moves of both: the first
    curve = [(1, _e(0, 1.0)), (2, _e(8, 1.0)), (4, _e(-8, 1.0)), (6, _e(-4, 1.0))]
    assert turning_point(curve) == 4                       # no move of the chance: the margin's largest
    assert turning_point([(1, _e(3, 0.5)), (2, _e(3, 0.5))]) is None
    assert turning_point([(1, _e(3, 0.5))]) is None and turning_point([]) is None
