"""Fair-play analysis of card play (domain/baloot/fairplay.py): a planted "ghost" who plays as if he saw every
hand is flagged by the binomial test against the honest population's share, and a "colluder" who knows his
partner's hand by the partner variant; an honest hard bot in the same seat on the same deals is not; the same
events and seed always give the same report."""

from __future__ import annotations

import functools

from domain.baloot.bots import bot
from domain.baloot.fairplay import analyse_deal, binomial_tail, flag, honest_share, planted, play_deal

DEALS = 30
SAMPLES = 16


def played(seed: str, seat0: str) -> list:
    """A deal played to its end, seat 0 by ``seat0`` ("ghost": the true best card whenever it has a choice;
    "colluder": the best knowing its partner's hand; "hard"; else the normal bot), the other seats by the
    normal bot; its events."""
    players = [bot("hard" if seat0 == "hard" else "normal"), bot("normal"), bot("normal"), bot("normal")]
    cheats = {"ghost": {0: "ghost"}, "colluder": {0: "partner"}}.get(seat0, {})
    return play_deal(seed, planted(players, cheats, seed=5, samples=SAMPLES))


@functools.cache
def decisions_of(seat0: str) -> tuple[list, list]:
    """Seat 0's decisions and the other (honest) seats', over the same deals."""
    mine, others = [], []
    for n in range(DEALS):
        for d in analyse_deal(played(f"fairplay-{n}", seat0), seed=1, samples=SAMPLES):
            (mine if d.seat == 0 else others).append(d)
    return mine, others


def test_a_ghost_is_flagged_and_an_honest_hard_bot_in_his_seat_is_not():
    ghost, honest_ghost_field = decisions_of("ghost")
    hard, honest_hard_field = decisions_of("hard")
    baseline = honest_share(honest_ghost_field + honest_hard_field + hard)
    assert 0.05 < baseline < 0.8, baseline

    caught = flag(ghost, baseline)
    assert caught.telling >= 10, "too few telling decisions to judge"
    assert caught.followed_true == caught.telling                       # he always plays what he sees
    assert caught.flagged and caught.p_value < 1e-4, caught

    cleared = flag(hard, baseline)
    assert cleared.telling >= 10
    assert not cleared.flagged and cleared.p_value > 0.01, cleared
    assert cleared.share < caught.share


def test_a_colluder_who_knows_his_partners_hand_is_flagged_by_the_partner_variant():
    colluder, field = decisions_of("colluder")
    hard, hard_field = decisions_of("hard")
    baseline = honest_share(field + hard_field + hard, "partner")
    assert 0.05 < baseline < 0.8, baseline
    caught = flag(colluder, baseline, variant="partner")
    assert caught.telling >= 6 and caught.flagged, caught
    cleared = flag(hard, baseline, variant="partner")
    assert cleared.telling >= 5 and not cleared.flagged and cleared.p_value > 0.01, cleared


def test_a_decision_is_telling_only_where_the_honest_and_the_true_best_differ_by_the_margin():
    for d in analyse_deal(played("fairplay-0", "normal"), seed=1, samples=SAMPLES):
        best_true = max(d.true)
        assert d.true[d.legal.index(d.true_best)] == best_true
        gap = best_true - d.true[d.legal.index(d.honest_best)]
        assert d.telling == (d.honest_best != d.true_best and gap >= 2.0)
        assert d.followed_true == (d.telling and d.played == d.true_best)
        if d.partner is not None:
            partner_gap = d.true[d.legal.index(d.partner_best)] - d.true[d.legal.index(d.honest_best)]
            assert d.partner_telling == (d.partner_best != d.honest_best and partner_gap >= 2.0)


def test_the_same_events_and_seed_give_the_same_report_and_another_seed_samples_anew():
    events = played("fairplay-3", "hard")
    first = analyse_deal(events, seed=7, samples=SAMPLES)
    assert first == analyse_deal(events, seed=7, samples=SAMPLES)
    assert [d.true for d in first] == [d.true for d in analyse_deal(events, seed=8, samples=SAMPLES)]
    assert [d.honest for d in first] != [d.honest for d in analyse_deal(events, seed=8, samples=SAMPLES)]


def test_the_binomial_tail_is_the_exact_sum():
    assert binomial_tail(0, 5, 0.3) == 1.0
    assert abs(binomial_tail(5, 5, 0.5) - 1 / 32) < 1e-12
    assert abs(binomial_tail(2, 3, 0.5) - 0.5) < 1e-12                 # 3/8 + 1/8
