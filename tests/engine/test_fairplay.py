"""Fair-play analysis (domain/baloot/fairplay.py): a planted "ghost" who plays as if he saw every hand is
flagged by the binomial test against the honest population's share, by his cards and by his bids, and a
"colluder" who knows his partner's hand by the partner variant; an honest hard bot in the same seat on the same deals is not; the same
events and seed always give the same report."""

from __future__ import annotations

import functools

from domain.baloot import deal as deal_mod
from domain.baloot.bots import bot
from domain.baloot.cards import card_name, cards_of, parse_card
from domain.baloot.events import Bid, Double, PlayCard, RecordResult, StartDeal
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


def test_a_ghost_who_bids_and_doubles_seeing_every_hand_is_flagged_by_his_bids():
    ghost, field = decisions_of("ghost")
    hard, hard_field = decisions_of("hard")
    baseline = honest_share(field + hard_field + hard, "bids")
    assert 0.0 < baseline < 0.6, baseline
    # The bids' honest share is not the cards': each variant has its own.
    assert abs(baseline - honest_share(field + hard_field + hard)) > 0.01
    caught = flag(ghost, baseline, variant="bids")
    assert caught.telling >= 6 and caught.followed_true == caught.telling and caught.flagged, caught
    cleared = flag(hard, baseline, variant="bids")
    assert cleared.telling >= 4 and not cleared.flagged, cleared


def test_a_bid_or_double_is_valued_by_the_contract_it_makes_and_passing_by_nothing():
    decisions = analyse_deal(played("fairplay-1", "normal"), seed=1, samples=SAMPLES)
    calls = [d for d in decisions if d.kind != "card"]
    assert any(d.kind == "bid" for d in calls)
    for d in calls:
        assert d.trick == 0 and len(d.legal) >= 2 and d.played in d.legal
        if "pass" in d.legal and d.kind == "double":
            i = d.legal.index("pass")
            assert d.honest[i] == 0.0 and d.true[i] == 0.0       # not doubling: the contract as it stands
        assert d.telling == (d.honest_best != d.true_best
                             and d.true[d.legal.index(d.true_best)] - d.true[d.legal.index(d.honest_best)] >= 2.0)
        assert d.partner is None and not d.partner_telling


def test_a_decision_is_telling_only_where_the_honest_and_the_true_best_differ_by_the_margin():
    for d in analyse_deal(played("fairplay-0", "normal"), seed=1, samples=SAMPLES):
        if d.kind != "card":
            continue
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


# A hand-made deal (Sun, seat 0 buys): seat 0 wins the first six tricks and leads trick 7 holding 7H and 7D.
# Seat 3 showed out of diamonds at trick 5, so from where seat 0 sits the ace of diamonds is his partner's one
# time in two and the ace of hearts one time in three: the 7D is the honest lead. But the partner holds AH and
# 9H, seat 1 AD and 8H: only the 7H wins both last tricks (the partner's ace, then his 9H, the last heart) and
# the Kaboot (44 GP); the 7D loses trick 7 to seat 1's ace.
HANDS = ("TD KD 7D TH 7H AS TS AC", "9D 8D AD 8H QH KS 9S KC", "QD JD AH 9H KH QS 8S 9C",
         "JH JS 7S TC QC JC 8C 7C")
TRICKS = ("AS KS QS JS", "TS 9S 8S 7S", "AC KC 9C JC", "TH QH KH JH", "TD 9D QD TC", "KD 8D JD QC",
          "7H 8H AH 7C", "9H 8C 7D AD")
DEALER = 3


def bidding(state):
    """Seat 0 (the dealer's right) buys Sun; every other call asked for is a pass."""
    if state.phase == "bidding":
        return Bid(state.turn, "sun" if state.turn == 0 else "pass")
    return Double(state.turn, "pass")


def deck_dealing(hands) -> tuple[int, ...]:
    """The deck order that deals ``hands`` under this bidding: the same deal from the identity order (card n
    at position n) shows which position reaches which seat."""
    state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=DEALER, deck=tuple(range(32))))
    while state.phase != "playing":
        state, _ = deal_mod.step(state, bidding(state))
    order = [0] * 32
    for seat, text in enumerate(hands):
        positions = [p for p in range(32) if state.hands[seat] >> p & 1]
        for position, card in zip(positions, text.split()):
            order[position] = parse_card(card)
    return tuple(order)


def test_a_hand_made_deal_whose_only_winning_card_needs_the_partners_hand():
    state, events = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=DEALER, deck=deck_dealing(HANDS)))
    assert [len(cards_of(h)) for h in state.hands] == [5, 5, 5, 5]             # the rest after the bid
    while state.phase != "playing":
        state, new = deal_mod.step(state, bidding(state))
        events += new
    assert [sorted(map(card_name, cards_of(h))) for h in state.hands] == [sorted(h.split()) for h in HANDS]
    for trick in TRICKS:
        cards = {parse_card(c) for c in trick.split()}
        for _ in range(4):
            card = next(c for c in cards if state.hands[state.turn] >> c & 1)
            state, new = deal_mod.step(state, PlayCard(state.turn, card))
            events += new
    while state.phase == "review":
        state, new = deal_mod.step(state, RecordResult())
        events += new
    assert state.result.kaboot and state.result.game_points == (44, 0)

    seventh = [d for d in analyse_deal(events, seed=1, samples=32, seats=(0,)) if d.trick == 7]
    assert len(seventh) == 1
    d = seventh[0]
    assert d.legal == ("7H", "7D") and d.played == "7H"
    value = dict(zip(d.legal, d.true))
    assert value == {"7H": 44.0, "7D": 22.0}              # the Kaboot, or trick 7 lost to seat 1's ace
    assert d.honest_best == "7D"                          # what he could know: the ace of diamonds is likelier
    assert d.partner_best == "7H" and d.true_best == "7H"
    assert d.partner_telling and d.followed_partner and d.telling and d.followed_true
