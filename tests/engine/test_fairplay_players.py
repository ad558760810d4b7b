"""The fair-play test populations (bench/fairplay_players.py): the exact solver agrees with a plain search
through the engine's own ``step`` (no pruning, no shortcut: every legal card, the engine's scoring), every kind
of player finishes a deal with legal moves only, and the ghost does at least as well as the honest hard bot
in its seat on the same deals."""

from __future__ import annotations

import functools
import random

from bench.fairplay_players import KINDS, Solver, _Ghost, exact_card_values, player, table
from domain.baloot.deal import INITIAL, legal_actions, step
from domain.baloot.events import PlayCard, RecordResult, StartDeal
from domain.baloot.fairplay import play_deal


def _plays(state):
    """One command per legal card, announcing Baloot where it may be (the solver assumes every holder does)."""
    best = {}
    for a in legal_actions(state, state.turn):
        if type(a) is PlayCard and (a.card not in best or a.baloot):
            best[a.card] = a
    return list(best.values())


def brute(state, team: int) -> int:
    """``team``'s GP margin with perfect play from ``state``, by trying every legal card through ``step``."""
    if state.phase == "scored":
        gp = state.result.game_points
        return gp[team] - gp[1 - team]
    values = [brute(step(state, a)[0], team) for a in _plays(state)]
    return max(values) if state.turn & 1 == team else min(values)


@functools.cache
def _positions_of(seed: str) -> list:
    """Every position where a card is to be played in a deal the noisy player plays at every seat."""
    choose = table(("noisy", "heuristic", "noisy", "normal"), seed=len(seed))
    state, _ = step(INITIAL, StartDeal(dealer=len(seed) % 4, seed=seed))
    out = []
    while state.phase not in ("scored", "void"):
        if state.phase == "playing":
            out.append(state)
        state, _ = step(state, RecordResult() if state.phase == "review" else choose(state))
    return out


def test_the_solver_equals_a_plain_search_through_the_engine():
    rng = random.Random(7)
    checked, kinds = 0, set()
    for n in range(60):
        late = [s for s in _positions_of(f"solver-{n}") if len(_plays(s)) > 1
                and (s.trick_no >= 5 or s.trick_no == 4 and len(s.trick) >= 2)]
        if not late:
            continue
        s = rng.choice(late)
        exact = exact_card_values(s)
        team = s.turn & 1
        plain = {a.card: brute(step(s, a)[0], team) for a in _plays(s)}
        assert exact == plain, (n, s.trick_no, s.trick)
        assert Solver(s, bound_cards=0).card_values() == plain, n     # the score grid's bounds, used early
        checked += 1
        kinds.add(s.contract.kind)
        if checked == 20:
            break
    assert checked == 20 and kinds == {"sun", "hokum"}


def test_the_best_card_is_a_best_of_all_values_and_the_preferred_one_among_equals():
    seen = 0
    for n in range(8):
        for s in _positions_of(f"best-{n}"):
            if s.trick_no in (3, 5) and len(_plays(s)) > 2:
                values = exact_card_values(s)
                top = max(values.values())
                for prefer in values:
                    card, value = Solver(s).best_card(prefer)
                    assert value == top and values[card] == top
                    assert (card == prefer) == (values[prefer] == top)
                seen += 1
    assert seen > 10


def test_the_solver_values_differ_between_cards_somewhere():
    """Not every position is a wash: the solver separates cards (a constant answer would pass the other test
    only where the brute force is constant too)."""
    spreads = []
    for n in range(6):
        for s in _positions_of(f"spread-{n}"):
            if s.trick_no == 5 and not s.trick:
                v = exact_card_values(s)
                spreads.append(max(v.values()) - min(v.values()))
    assert max(spreads) > 0


def _played_deal(prefix: str, choose_of, dealer: int = 0) -> list:
    """The first deal from seeds ``prefix-0``, ``prefix-1``... that is played out (not voided by four
    passes), each ``choose_of(n)`` a fresh table; its events."""
    for n in range(20):
        events = play_deal(f"{prefix}-{n}", choose_of(n), dealer=dealer)
        if type(events[-1]).__name__ == "DealScored":
            return events
    raise AssertionError(f"no deal of {prefix} was played out")


def _cards_by(events, seat: int) -> int:
    return sum(1 for e in events if type(e).__name__ == "CardPlayed" and e.seat == seat)


def test_every_kind_plays_a_whole_deal_legally():
    """The strict table refuses an illegal card (DomainError), so a scored deal is a legal one."""
    for i, kind in enumerate(KINDS):
        if kind in ("strong", "pair", "ghost", "ghost50", "ghost25"):
            continue            # the solver's kinds: below, cheaper
        events = _played_deal(f"kinds-{i}", lambda n: table((kind, "normal", kind, "normal"), seed=n), i % 4)
        assert _cards_by(events, 0) == 8 and _cards_by(events, 2) == 8, kind


def _cheap(choose, from_trick: int):
    """The solver's kinds of ``choose``'s seat 0 made cheap for a test: the hard bot (bids, and cards before
    ``from_trick``) on 8 samples."""
    p = choose.players[0]
    p.from_trick = from_trick
    p.hard.bot.samples = 8
    p.hard.bot.bid_samples = 8
    return choose


def test_the_solver_kinds_play_a_whole_deal_legally():
    """A strict table refuses an illegal card: strong and pair (sampling and solving from their view) from trick 5, the ghosts from trick 2 (the full
    hands of trick 1 take the solver seconds)."""
    for i, kind in enumerate(("strong", "pair", "ghost", "ghost50", "ghost25")):
        start = 5 if kind in ("strong", "pair") else 2
        events = _played_deal(f"solver-kinds-{i}",
                              lambda n: _cheap(table((kind, "normal", "normal", "normal"), seed=n), start), 1)
        assert _cards_by(events, 0) >= 4, kind      # the hard bot's cover may claim Sawa (سوا) late


def _gp_of(events, team: int) -> int:
    result = events[-1].result
    return result.game_points[team] - result.game_points[1 - team]


def test_the_ghost_does_at_least_as_well_as_the_hard_bot_in_its_seat():
    """Seat 0 a ghost or the hard bot on the same deals, the three other seats ghosts. Everyone bids as the
    hard bot and plays trick 1 and 2 as the hard bot (same seeds, same views: the same cards), so both
    tables reach the same position; from there the ghosts play perfectly, and against perfect play a seat
    only loses by its own mistakes: deal by deal, the ghost in seat 0 makes at least what the hard bot does.
    (Against normal bots, which are not perfect, it need not: on 19 deals the ghost made -21 GP and the
    hard bot +9; each deviation is exact on the hands but counts on play the others do not make.)"""
    played = better = 0
    for n in range(30):
        seed = f"ghost-vs-hard-{n}"
        results = []
        for first in ("ghost", "hard"):
            seats = [_Ghost(4 * n + i, from_trick=3) for i in range(4)]
            if first == "hard":
                seats[0] = player("hard", 4 * n)
            results.append(play_deal(seed, lambda s: seats[s.turn](s), dealer=n % 4))
        if type(results[0][-1]).__name__ != "DealScored":
            continue
        ghost, hard = (_gp_of(r, 0) for r in results)
        assert ghost >= hard, (seed, ghost, hard)
        better += ghost > hard
        played += 1
        if played == 4:
            break
    assert played == 4 and better       # the hard bot's cards are not all perfect (ghost-vs-hard-4: 13 to 5 GP)
