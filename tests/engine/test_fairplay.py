"""Fair-play analysis (domain/baloot/fairplay.py): a planted "ghost" who plays as if he saw every hand is
flagged by the accumulated evidence against an honest player of his own strength, by his cards and by his
bids, and a "colluder" who knows his partner's hand by the partner variant; an honest hard bot in the same
seat on the same deals is not; the same events and seed always give the same report. The evidence itself is
tested on decisions made up here: its weight, its minimum, and Ville's bound on honest players."""

from __future__ import annotations

import functools
import math

import msgspec
import random

from domain.baloot import deal as deal_mod
from domain.baloot.bots import bot
from domain.baloot.cards import card_name, cards_of, parse_card
from domain.baloot.events import Bid, Double, PlayCard, RecordResult, StartDeal
from domain.baloot.fairplay import (
    MIN_TELLING, UNCALIBRATED, Decision, analyse_deal, choice_probabilities, judge, planted, play_deal, threshold,
)

DEALS = 24
BID_DEALS = 8
SAMPLES = 16


def played(seed: str, seat0: str) -> list:
    """A deal played to its end, seat 0 by ``seat0`` ("ghost": the true best card whenever it has a choice;
    "colluder": the best knowing its partner's hand; "hard"; else the normal bot), the other seats by the
    normal bot; its events."""
    players = [bot("hard" if seat0 == "hard" else "normal"), bot("normal"), bot("normal"), bot("normal")]
    cheats = {"ghost": {0: "ghost"}, "colluder": {0: "partner"}}.get(seat0, {})
    return play_deal(seed, planted(players, cheats, seed=5, samples=SAMPLES))


@functools.cache
def decisions_of(seat0: str, kinds=("card",)) -> list:
    """Seat 0's decisions of ``kinds`` over the same deals (the bids' exact values cost the most: fewer deals)."""
    mine = []
    for n in range(DEALS if kinds == ("card",) else BID_DEALS):
        mine += analyse_deal(played(f"fairplay-{n}", seat0), seed=1, samples=SAMPLES, seats=(0,), kinds=kinds)
    return mine


def test_a_ghost_is_flagged_and_an_honest_hard_bot_in_his_seat_is_not():
    ghost, hard = decisions_of("ghost"), decisions_of("hard")
    caught = judge(ghost)
    assert caught.telling >= MIN_TELLING, "too few telling decisions to judge"
    assert caught.followed == caught.telling                       # he always plays what he sees
    assert caught.flagged and caught.evidence > threshold(0.01, 1) + 1, caught
    assert caught.gain > 0

    cleared = judge(hard)
    assert cleared.telling >= 3
    assert not cleared.flagged and cleared.evidence < 1.0, cleared
    assert cleared.followed / cleared.telling < caught.followed / caught.telling


def test_a_colluder_who_knows_his_partners_hand_is_flagged_by_the_partner_variant():
    # Few decisions are partner-telling in sixteen deals: the evidence only starts to gather (the benchmark
    # measures how many deals a flag takes).
    caught = judge(decisions_of("colluder"), "partner")
    cleared = judge(decisions_of("hard"), "partner")
    assert caught.followed > cleared.followed and caught.gain > cleared.gain, (caught, cleared)
    assert caught.evidence > cleared.evidence + 0.5 and not cleared.flagged, (caught, cleared)


def test_a_ghost_who_bids_and_doubles_seeing_every_hand_gathers_evidence_by_his_bids():
    caught = judge(decisions_of("ghost", ("bid", "double")), "bids")
    assert caught.telling >= 3 and caught.followed == caught.telling and caught.evidence > 2.0, caught
    cleared = judge(decisions_of("hard", ("bid", "double")), "bids")
    assert cleared.evidence < caught.evidence and not cleared.flagged, cleared


def test_a_bid_or_double_is_valued_by_the_contract_it_makes_and_passing_by_nothing():
    decisions = analyse_deal(played("fairplay-1", "normal"), seed=1, samples=SAMPLES)
    calls = [d for d in decisions if d.kind != "card"]
    assert any(d.kind == "bid" for d in calls)
    for d in calls:
        assert d.trick == 0 and len(d.legal) >= 2 and d.played in d.legal
        if "pass" in d.legal and d.kind == "double":
            i = d.legal.index("pass")
            assert d.honest[i] == 0.0 and d.true[i] == 0.0       # not doubling: the contract as it stands
        assert d.telling == (d.true[d.legal.index(d.true_best)] - d.true[d.legal.index(d.honest_best)] >= 2.0)
        if d.kind == "double":
            assert d.partner is None and not d.partner_telling
        elif d.partner is not None:                      # a bid valued knowing the partner's five cards
            p, h = d.legal.index(d.partner_best), d.legal.index(d.honest_best)
            assert d.partner_telling == (p != h and d.true[p] - d.true[h] >= 2.0)


def test_a_decision_is_telling_only_where_the_honest_and_the_true_best_differ_by_the_margin():
    for d in analyse_deal(played("fairplay-0", "normal"), seed=1, samples=SAMPLES):
        if d.kind != "card":
            continue
        best_true = max(d.true)
        assert d.true[d.legal.index(d.true_best)] == best_true
        gap = best_true - d.true[d.legal.index(d.honest_best)]
        assert d.telling == (gap >= 2.0)
        assert d.followed_true == (d.telling and d.true[d.legal.index(d.played)] == best_true)
        if d.partner is not None:
            partner_gap = d.true[d.legal.index(d.partner_best)] - d.true[d.legal.index(d.honest_best)]
            assert d.partner_telling == (d.partner_best != d.honest_best and partner_gap >= 2.0)


def test_the_same_events_and_seed_give_the_same_report_and_another_seed_samples_anew():
    events = played("fairplay-3", "hard")
    first = analyse_deal(events, seed=7, samples=SAMPLES)
    assert first == analyse_deal(events, seed=7, samples=SAMPLES)
    assert [d.true for d in first] == [d.true for d in analyse_deal(events, seed=8, samples=SAMPLES)]
    assert [d.honest for d in first] != [d.honest for d in analyse_deal(events, seed=8, samples=SAMPLES)]


def made_up(rng: random.Random, cheat: float, strength=(1.0, 0.15), telling: bool = True) -> Decision:
    """A card decision of four options with made-up values: an honest player of ``strength`` chooses by the
    honest model, a cheater takes the true best (option 3, honestly the worst) a share ``cheat`` of the time."""
    honest = (rng.uniform(2, 6), rng.uniform(0, 4), rng.uniform(-2, 2), rng.uniform(-6, -2))
    true = (0.0, 0.0, 0.0, 10.0) if telling else (10.0, 0.0, 0.0, 0.0)
    names = ("AS", "KS", "QS", "7S")
    if rng.random() < cheat:
        chose = 3
    else:
        chose = rng.choices(range(4), choice_probabilities(honest, *strength))[0]
    best = max(range(4), key=lambda i: true[i])
    return Decision(0, 0, 1, names, names[chose], honest, true, names[0], names[best], telling,
                    telling and chose == best)


def player(seed: int, cheat: float, telling: int, plain: int = 60) -> list[Decision]:
    rng = random.Random(seed)
    return ([made_up(rng, cheat, telling=False) for _ in range(plain)]
            + [made_up(rng, cheat) for _ in range(telling)])


def test_honest_players_of_the_model_cross_the_line_no_more_often_than_ville_allows():
    # Ville: a likelihood ratio that is a martingale for honest players ever reaches 1/α with probability <= α.
    alpha = 0.05
    line = math.log(1 / alpha)
    # The players here choose by the honest model itself: judged uncalibrated, the model is exactly right.
    crossed = sum(judge(player(n, 0.0, 40), calibration=UNCALIBRATED).evidence >= line for n in range(400))
    assert crossed <= 400 * alpha, crossed
    # …while a cheater one time in four on the same decisions crosses it far more often
    assert sum(judge(player(n, 0.25, 40), calibration=UNCALIBRATED).evidence >= line
               for n in range(400)) > 4 * max(crossed, 5)


def test_the_evidence_weighs_what_a_follow_was_worth_not_only_how_often():
    rng = random.Random(3)
    plain = [made_up(rng, 0.0, telling=False) for _ in range(60)]

    def follows(true_best: int) -> list[Decision]:
        """Ten telling decisions, each followed, the true best being option ``true_best`` (0: honestly the best)."""
        out = []
        for _ in range(10):
            d = made_up(rng, 0.0)
            true = tuple(10.0 if i == true_best else 0.0 for i in range(4))
            names = d.legal
            out.append(Decision(0, 0, 1, names, names[true_best], d.honest, true, names[0], names[true_best],
                                True, True))
        return out

    likely = judge(plain + follows(1), calibration=UNCALIBRATED)
    unlikely = judge(plain + follows(3), calibration=UNCALIBRATED)
    assert likely.followed == unlikely.followed == 10
    assert unlikely.evidence > likely.evidence + 5
    assert unlikely.expected < likely.expected


def test_the_bids_evidence_flags_nobody():
    # Reported, not flagged: honest aggressive bidders of another engine's style gather it (docs/fairplay.md).
    rng = random.Random(8)
    bids = []
    for _ in range(30):
        d = made_up(rng, 1.0)
        bids.append(msgspec.structs.replace(d, kind="bid"))
    e = judge(bids, "bids")
    assert e.telling == 30 and e.evidence > threshold(0.01, 1) and not e.flagged
    assert judge([msgspec.structs.replace(d, kind="card") for d in bids]).flagged     # the same, as cards


def test_no_flag_on_too_little_evidence_and_none_on_nothing_telling():
    rng = random.Random(5)
    few = [made_up(rng, 1.0) for _ in range(MIN_TELLING - 1)]
    e = judge(few)
    assert e.evidence > threshold(0.01, 1) and not e.flagged        # strong, but too few decisions to flag
    nothing = judge([made_up(rng, 0.0, telling=False) for _ in range(50)])
    assert nothing.telling == 0 and nothing.evidence == 0.0 and nothing.p_value == 1.0 and not nothing.flagged


def test_the_line_is_corrected_for_how_many_are_tested():
    assert threshold(0.01, 1) == math.log(100)
    assert threshold(0.01, 4 * 20480) == math.log(4 * 20480 / 0.01)


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


def test_a_deal_is_judged_alike_from_the_log_and_from_its_hand_record():
    # Offline (``baloot fairplay RECORD``) and online (the analyser) take the same decisions for the same deal
    # and seed: the samples depend on the deal's cards, not on the commitment a replayed record lacks.
    from domain.baloot.fairplay import record_events
    from domain.baloot.handrecord import encode_record, export_record, parse_record

    events = played("fairplay-2", "hard")
    replayed = record_events(parse_record(encode_record(export_record(events))))
    offline, online = analyse_deal(replayed, seed=3, samples=SAMPLES), analyse_deal(events, seed=3, samples=SAMPLES)
    assert len(offline) == len(online) > 10

    def unplaced(d):                    # the events' positions differ (the log has one more at the start)
        return msgspec.structs.replace(d, index=0)

    assert [unplaced(d) for d in offline] == [unplaced(d) for d in online]
