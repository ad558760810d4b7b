"""Two exact solvers written apart agree: the detector's (domain/baloot/solver.py ``card_values``) and the test
populations' (bench/fairplay_players.py ``exact_card_values``), card by card, on positions of every trick
from 2 to 8 of deals played by mixed tables (Sun and Hokum, leads and follows). Both claim the exact GP margin
of the seat to play's team with every hand open, Baloot announced by its holders; two programs that share
no code and agree are unlikely to share a mistake."""

from __future__ import annotations

import random

from bench.fairplay_players import exact_card_values
from domain.baloot import solver
from tests.engine.test_fairplay_players import _positions_of

PER_TRICK = {2: 2, 3: 2, 4: 3, 5: 3, 6: 3, 7: 3, 8: 2}


def test_the_two_solvers_agree_card_by_card():
    rng = random.Random(11)
    need = dict(PER_TRICK)
    kinds = set()
    for n in range(80):
        positions = _positions_of(f"cross-{n}")
        for trick in sorted(need):
            if not need[trick]:
                continue
            here = [s for s in positions if s.trick_no + 1 == trick]
            if not here:
                continue
            s = rng.choice(here)
            theirs = {card: margin for card, margin in solver.card_values(s)}
            ours = exact_card_values(s)
            assert set(theirs) == set(ours), (n, trick)
            for card in ours:
                assert abs(theirs[card] - ours[card]) < 1e-9, (n, trick, card, theirs, ours)
            need[trick] -= 1
            kinds.add(s.contract.kind)
        if not any(need.values()):
            break
    assert not any(need.values()) and kinds == {"sun", "hokum"}
