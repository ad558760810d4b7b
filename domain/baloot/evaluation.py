"""A spectator's evaluation bar: as a deal is played, the expected game points of the deal at its end and the
chance that the buyer's team makes its contract, from what the spectator may see.

**Two truths.** With ``hands_open`` (a table whose spectators see every hand, a replay, an analysis) the
position is solved once on the true hands by the perfect-information solver (domain/baloot/solver.py, the one
solver of the project): every seat plays the rest of the deal perfectly, seeing every hand, and the deal ends
in one outcome, scored by the engine's ``deal_result``. Without it, only what the spectator's view shows goes
in (``views.view(state, None, hands="never")``: the bids, the face-up card and who took it, the cards played
and the voids they prove, the declared projects and their shown cards, the hand sizes): ``samples`` deals of
the hidden cards consistent with it are drawn (``Knowledge``, the hard bot's sampler, read for a viewer
without a hand), each solved exactly, and averaged. The public evaluation never reads the state itself: it is
computed from the view alone, and its samples are seeded from ``seed`` and the view (less the deal's
commitment), never from the deck, so the bar cannot leak a hidden card: two deals that look the same to a
spectator get the same bar.

**What the figures are.** ``margin`` is team 0's GP of the deal less team 1's, as ``deal_result`` counts them
(card points converted, projects, Baloot, the multiplier, Kaboot, Gahwa); ``scores`` the two teams' GP;
``made`` whether the buyer's team makes its contract: the result is not ``failed`` in the engine's terms (the
deal does not go to the defenders: the buyer's team has at least the defenders' GP, a tie decided for it, or
a split Sun, and the defenders took no Kaboot); with hidden cards it is the share of samples where it is
made. The solver searches the GP margin; a margin is reached by outcomes that score alike (in Saudi rules one
margin is one result: the tests check it on played deals), so each outcome is read from the first outcome of
the play, the fewest abnat for team 0, that scores the margin found.

**Assumptions.** Perfect play with every hand open overrates the defence and the attack alike (both see
everything): it is the solver's value, not a forecast of how these players will play. In trick 1 every seat
that has neither declared nor played yet declares its best projects (the mover too: the bar is read before
he declares, and the platform's players declare their best), and every holder of trump K and Q announces
Baloot. Before trick 1 (the doubling, the first lead) the deal is valued with the contract as it stands.

**Cost.** A live table is evaluated after every card. The solver's transposition table is per hands and play
rules and serves every later position of the same deal, so ``solvers`` (a dict kept for the deal) holds one
solver per set of eight-card hands and contract (the key the fair-play analysis uses): hands open, one solve
of the deal at its start and short searches after. The public samples change with every card (each view is
sampled anew), so their solvers are kept only while the next position may use them (bench/evaluation.py
measures both).
"""

from __future__ import annotations

import random

import msgspec
from msgspec.structs import replace

from domain.baloot.bots.hard import view_seed
from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.cards import parse_card
from domain.baloot.deal import INITIAL, evolve
from domain.baloot.dealstate import DealState, speaking_order
from domain.baloot.events import CardPlayed, ContractFixed, DealScored, DoubleCalled, ProjectsDeclared, \
    SawaClaimed
from domain.baloot.result import deal_result
from domain.baloot.solver import Outcomes, _nearest, outcomes, solver_for
from domain.baloot.views import DealView, view

__all__ = ["Evaluation", "deal_curve", "evaluate", "moves", "turning_point"]


class Evaluation(msgspec.Struct, frozen=True):
    margin: float                  # team 0's expected GP of the deal less team 1's
    scores: tuple[float, float]    # the expected GP of the deal for teams 0 and 1
    made: float                    # the chance the buyer's team makes its contract (not ``failed``), 0..1
    exact: bool                    # True: the true hands (or the deal over); False: the mean over samples


def evaluate(state: DealState, *, hands_open: bool, seed: int = 0, samples: int = 16,
             solvers: dict | None = None) -> Evaluation | None:
    """The evaluation of the deal ``state`` (see the module's docstring), or None where there is nothing to
    evaluate: no contract yet (bidding), a void, annulled or stopped deal. Once the last card is played (the
    review, the scored deal) it is the result itself. ``solvers``: a dict kept for the deal (one per deal:
    the searches of its hands, reused by its later positions)."""
    phase = state.phase
    if state.contract is None or phase not in ("doubling", "playing", "review", "scored"):
        return None
    if phase in ("review", "scored"):
        r = state.result if phase == "scored" else deal_result(state)
        gp = r.game_points
        return Evaluation(float(gp[0] - gp[1]), (float(gp[0]), float(gp[1])), 0.0 if r.failed else 1.0, True)
    solvers = {} if solvers is None else solvers
    if hands_open:
        s = state
        if phase == "doubling":               # the contract as it stands, played from its first card
            s = replace(state, phase="playing", leader=state.order[0], turn=state.order[0], trick=(), trick_no=0)
        gp0, gp1, made = _solve(s, solvers)
        return Evaluation(gp0 - gp1, (gp0, gp1), made, True)
    return public_evaluation(view(state, None, hands="never"), seed=seed, samples=samples, solvers=solvers)


def public_evaluation(v: DealView, *, seed: int = 0, samples: int = 16, solvers: dict | None = None
                      ) -> Evaluation | None:
    """The evaluation from a spectator's view ``v`` alone (a deal in doubling or play): the mean over
    ``samples`` deals of the hidden cards consistent with it, each solved exactly. The samples are seeded by
    ``seed`` and the view without its commitment (a hand record replayed has none, and the commitment names
    the deal, not what is public of it)."""
    if v.contract is None or v.phase not in ("doubling", "playing"):
        return None
    k = Knowledge(v)
    rng = random.Random(view_seed(replace(v, commitment=None), seed))
    base = _public_state(v, k)
    cache = {} if solvers is None else solvers
    kept = cache.get("public", {})
    used: dict = {}
    total0 = total1 = made = 0.0
    for _ in range(samples):
        hands, declared = k.sample(rng)
        gp0, gp1, m = _solve(replace(base, hands=hands, declared=declared), kept, used)
        total0 += gp0
        total1 += gp1
        made += m
    cache["public"] = used           # the searches the next position may reuse: this position's
    n = float(samples)
    return Evaluation((total0 - total1) / n, (total0 / n, total1 / n), made / n, False)


def _public_state(v: DealView, k: Knowledge) -> DealState:
    """The position as the view shows it, hands aside: what the solver needs of a deal, all public."""
    order = speaking_order(v.dealer)
    if v.phase == "doubling":
        leader, trick = order[0], ()
    else:
        leader = v.trick[0].seat if v.trick else v.turn
        trick = tuple(parse_card(p.card) for p in v.trick)
    return DealState(phase="playing", profile=v.rules, dealer=v.dealer, scores_before=v.scores_before,
                     order=order, contract=k.contract, trump=k.trump, leader=leader, turn=(leader + len(trick)) & 3,
                     trick=trick, trick_no=len(v.tricks), played=tuple(k.played_by), points=tuple(v.points),
                     tricks=tuple(v.tricks_won), baloot_seats=tuple(v.baloot))


def _solve(s: DealState, solvers: dict, used: dict | None = None) -> tuple[float, float, float]:
    """Team 0's and team 1's GP and whether the buyer makes it (1.0 or 0.0) with every hand of ``s`` (a deal
    in play) open and perfect play from here: the mover's best card. The solver of the deal's eight-card hands
    and play rules comes from ``solvers`` (made there if new; also put in ``used`` when given), the margin it
    found last (``solvers["margins"]``) the search's hint."""
    eight = tuple(h | p for h, p in zip(s.hands, s.played))
    key = (eight, s.trump, s.contract.closed)
    solver = solvers.get(key)
    if solver is None:
        solver = solvers[key] = solver_for(s)
    last = solvers.setdefault("margins", {})
    if used is not None:
        used[key] = solver
        used.setdefault("margins", {})
    score = outcomes(s, -1)                  # -1: every seat still to declare in trick 1 declares its best
    margins, thresholds, low, high = score.levels()
    left = 8 - s.trick_no
    if score.inexact:
        m = solver.exact(s.hands, s.leader, s.trick, left, -1, score.margin)
    else:
        solver.prepare((s.tricks[0] > 0) | (s.tricks[1] > 0) << 1, low, high)
        hint = _nearest(margins, last.get(key))
        m = margins[solver.level(s.hands, s.leader, s.trick, left, -1, thresholds, hint)]
    last[key] = m
    if used is not None:
        used["margins"][key] = m
    return _result_of(score, m)


def _result_of(score: Outcomes, margin: float) -> tuple[float, float, float]:
    """The GP of both teams and made (1.0/0.0) of the outcome of the play from ``score``'s position that
    scores ``margin`` for team 0: the first, by team 0's abnat, that does."""
    for value in _values(score):
        if score.margin(value) == margin:
            r = outcome_result(score, value)
            return float(r.game_points[0]), float(r.game_points[1]), 0.0 if r.failed else 1.0
    raise ValueError(f"no outcome of the play scores {margin}")      # pragma: no cover - the solver's own


def _values(score: Outcomes):
    """The outcomes (``9 × abnat + tricks`` of team 0 from here) that stand for every score the play can
    reach (``Outcomes.levels``): none, each abnat with one trick, everything; then the rest, to be sure."""
    top = 9 * score.remaining + score.left
    first = sorted({0, top} | {9 * a + 1 for a in range(score.remaining + 1) if 9 * a + 1 < top})
    yield from first
    seen = set(first)
    yield from (v for v in range(top + 1) if v not in seen)


def outcome_result(score: Outcomes, value: int):
    """The engine's ``DealResult`` of the play from ``score``'s position ending in ``value`` (as
    ``Outcomes.margin`` scores it)."""
    abnat, won = divmod(value, 9)
    s = score.state
    final = replace(s, phase="review", points=(s.points[0] + abnat, s.points[1] + score.remaining - abnat),
                    tricks=(s.tricks[0] + won, s.tricks[1] + score.left - won), declared=score.declared,
                    baloot_seats=score.baloot, trick=(), trick_no=8)
    return deal_result(final)


# The events after which the evaluation may change: the contract fixed or raised, a declaration (public: the
# kinds declared), a card, Sawa, the result. A pass, a bid, the private deal change nothing it reads.
_MOVES = (ContractFixed, ProjectsDeclared, CardPlayed, SawaClaimed, DealScored)


def moves(events) -> list[int]:
    """The indices of a deal's events (from ``deal_started``) after which its evaluation may move, once there is
    a contract: the positions ``deal_curve`` evaluates (the platform's evaluator stores one value for each)."""
    state, out = INITIAL, []
    for index, event in enumerate(events):
        before = state.contract
        state = evolve(state, event)
        if state.contract is not None and (isinstance(event, _MOVES) or (isinstance(event, DoubleCalled)
                                                                         and state.contract != before)):
            out.append(index)
    return out


def deal_curve(events, *, hands_open: bool, seed: int = 0, samples: int = 16, solvers: dict | None = None
               ) -> list[tuple[int, Evaluation]]:
    """The evaluation after each event of a deal (its events from ``deal_started``, as ``fairplay.analyse_deal``
    takes them) that may change it, from the contract to the last card (or Sawa): [(index of the event it
    follows, evaluation)]. A double that raises the contract counts, a pass does not; the result recorded
    after the last card counts only where it differs (a Qayd). One ``solvers`` serves the whole deal."""
    state, out = INITIAL, []
    solvers = {} if solvers is None else solvers
    at = set(moves(events))
    for index, event in enumerate(events):
        state = evolve(state, event)
        if index not in at:
            continue
        e = evaluate(state, hands_open=hands_open, seed=seed, samples=samples, solvers=solvers)
        if e is None or (isinstance(event, DealScored) and out and out[-1][1] == e):
            continue
        out.append((index, e))
    return out


def turning_point(curve: list[tuple[int, Evaluation]]) -> int | None:
    """The index of the event after which the deal turned: the one whose evaluation moved the buyer's chance
    the most from the one before (ties: the margin; then the first); None if nothing ever moved."""
    best, key = None, (0.0, 0.0)
    for (_, a), (index, b) in zip(curve, curve[1:]):
        move = (abs(b.made - a.made), abs(b.margin - a.margin))
        if move > key:
            best, key = index, move
    return best
