"""The expert bot (domain/baloot/bots/expert.py; tests/engine/test_hard_bot.py checks that it is given its
seat's view and nothing else): legal under every profile, the same in any process; its player model's
likelihoods; the planted Kaboot found by its solved samples; its bidding model valuing what a Baloot player
values; and the match's all-seeing ceiling and single bidder."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys

import msgspec
import pytest

from domain.baloot import deal as deal_mod
from domain.baloot.bots import ExpertBot, LEVELS, bot
from domain.baloot.bots.contract_model import hokum_features, predict, sun_features
from domain.baloot.bots.expert import BIDDINGS, CeilingBot, auction_values, bid_likelihood, play_likelihood, resample
from domain.baloot.bots.hard import contract_values
from domain.baloot.bots.simple import NormalBot
from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.bots.rollout import Table, choose_card
from domain.baloot.bots.match import play_board
from domain.baloot.cards import card_name, cards_of
from domain.baloot.events import Bid, Contract, Double, PlayCard, StartDeal
from domain.baloot.profiles import PROFILES
from domain.baloot.solver import card_values
from domain.baloot.tricks import winning_index
from domain.baloot.views import view
from tests.engine.test_hard_bot import ROOT, play
from tests.engine.test_review import TRICKS, planted_deal

MIXED = ("expert", "normal", "expert", "normal")


def test_expert_is_a_level_of_the_tables_and_the_ceiling_is_not():
    assert "expert" in LEVELS and type(bot("expert")) is ExpertBot
    assert "ceiling" not in LEVELS


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_expert_moves_are_legal_under_every_profile(profile):
    state, actions = play(f"expert-legal-{profile}", profile, "strict", MIXED, dealer=2)
    assert state.offences == () and state.phase in ("scored", "void")
    assert any(type(a) is Bid for a in actions)


def test_the_same_seed_gives_the_same_expert_moves_in_any_process():
    seed = "expert-replay"
    _, first = play(seed, levels=MIXED)
    assert sum(type(a) is PlayCard for a in first) >= 16
    digest = hashlib.sha256(msgspec.json.encode(first)).hexdigest()
    probe = ("import hashlib, msgspec; from tests.engine.test_hard_bot import play; "
             f"print(hashlib.sha256(msgspec.json.encode(play({seed!r}, levels={MIXED!r})[1])).hexdigest())")
    run = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={"PYTHONHASHSEED": "4321", "PATH": ""})
    assert run.stdout.strip() == digest, run.stderr


def test_the_expert_leads_the_ace_that_makes_the_kaboot():
    # tests/engine/test_review.py's hand-made Sun: after six tricks seat 0 holds A♦ 7♦ and seat 1 K♦ beside A♥;
    # A♦ first is all eight tricks (44-0), 7♦ first gives two away.
    events, _ = planted_deal([])
    state = deal_mod.INITIAL
    for e in events:
        state = deal_mod.evolve(state, e)
    assert state.trick_no == len(TRICKS) and state.turn == 0
    assert sorted(card_name(c) for c in cards_of(state.hands[0])) == ["7D", "AD"]
    assert type(ExpertBot().choose(view(state, 0))).__name__ == "ClaimSawa"     # right: every trick is his
    choice = ExpertBot(sawa_cards=0).choose(view(state, 0))                      # and without claiming
    assert type(choice) is PlayCard and card_name(choice.card) == "AD"


def test_a_deal_played_by_the_model_weighs_what_the_model_says_on_its_true_hands():
    # The player model is the hard bot's rollout policy (the normal bot's card sense on bit masks). On the true
    # hands of a deal whose cards were all chosen by it, each card another seat chose among several weighs
    # 1 - noise + noise / n (n: its legal cards, counted here by the engine); without a model, every deal is 1.
    players = [bot("normal") for _ in range(4)]
    noise = 0.5
    for n_seed in range(20):                   # the first deal bought by someone (not all passing)
        state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=0, seed=f"model-{n_seed}"))
        expected = 1.0
        while state.phase in ("bidding", "doubling") or state.phase == "playing" and state.trick_no < 5:
            seat = state.turn
            legal = deal_mod.legal_actions(state, seat)
            cmd = players[seat].choose(view(state, seat))
            if state.phase == "playing" and type(cmd) is PlayCard:
                c, p = state.contract, state.profile
                tb = Table(state.trump, c.closed, p.partner_winning_exemption, p.undertrump_required, c.buyer & 1)
                win = winning_index(state.trick, state.trump) if state.trick else 0
                cmd = PlayCard(seat, choose_card(tb, state.hands, seat, state.trick, win))
                n = len({a.card for a in legal if type(a) is PlayCard})
                if n > 1 and seat != 0:
                    expected *= 1 - noise + noise / n
            state, _ = deal_mod.step(state, cmd)
        if state.phase == "playing":
            break
    k = Knowledge(view(state, 0))
    assert expected < 0.5                                # some choices were made: the product means something
    assert play_likelihood(k, state.hands, noise) == pytest.approx(expected)
    assert play_likelihood(k, state.hands, 1.0) == 1.0
    # Seat 1's cards and seat 3's swapped: a deal the same seen from seat 0 where they could not have played so
    # (or not by the model) weighs less.
    swapped = (state.hands[0], state.hands[3], state.hands[2], state.hands[1])
    assert play_likelihood(k, swapped, noise) < expected


def test_a_pass_over_a_strong_hokum_hand_is_unlikely_and_over_a_weak_one_likely():
    # The first seat passed in round 1; the second to speak weighs what the first may hold. A strong Hokum hand
    # in the face-up card's suit (its Jack, Nine and Ace, and two other aces) hardly passes; a hand of low
    # cards of other suits does.
    for n_seed in range(40):                   # a deal where those cards are not the viewer's nor face up
        state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=3, seed=f"bid-model-{n_seed}"))
        first = state.order[0]
        fu = state.deck[20]
        t = fu >> 3
        free = [c for c in range(32) if not (state.hands[state.order[1]] >> c & 1) and c != fu]
        rich = [c for c in free if c >> 3 == t and c & 7 in (4, 2, 7)] + [c for c in free if c & 7 == 7 and c >> 3 != t]
        poor = [c for c in free if c >> 3 != t and c & 7 in (0, 1)]
        if len(rich) >= 5 and rich[:3] == [c for c in free if c >> 3 == t and c & 7 in (4, 2, 7)][:3] \
                and sum(c >> 3 == t for c in rich) == 3 and len(poor) >= 5:
            break
    state, _ = deal_mod.step(state, next(a for a in deal_mod.legal_actions(state, first) if a.bid == "pass"))
    v = view(state, state.turn)
    strong, weak = [0, 0, 0, 0], [0, 0, 0, 0]
    strong[first] = sum(1 << c for c in rich[:5])
    weak[first] = sum(1 << c for c in poor[:5])
    assert bid_likelihood(v, strong) < 0.25 < 0.75 < bid_likelihood(v, weak)


def test_resampling_keeps_the_weights_proportions_and_never_a_zero():
    import random

    picks = resample([0.0, 3.0, 0.0, 1.0], 8, random.Random(1))
    assert picks.count(1) == 6 and picks.count(3) == 2 and 0 not in picks and 2 not in picks
    assert resample([0.0, 0.0], 4, random.Random(1)) == [0, 0, 1, 1]        # no weight: all alike


def test_the_bidding_model_values_what_a_baloot_player_values():
    # Learnt from solved deals (bench/expert.py --fit): the Jack and the Nine are the trumps worth most, an
    # ace is worth more in Sun than a king, and a strong hand's contract beats a weak one's by far.
    names = ("J", "9", "A", "10", "K", "Q", "8", "7")
    trump = [predict("hokum", hokum_features([8 * 0 + r], 0, 0)) for r in (4, 2, 7, 3, 6, 5, 1, 0)]
    ranked = [n for _, n in sorted(zip(trump, names), reverse=True)]
    assert set(ranked[:2]) == {"J", "9"}, ranked
    strong = predict("hokum", hokum_features([4, 2, 7, 3, 15, 23], 0, 0))       # J 9 A T of trumps, two aces
    weak = predict("hokum", hokum_features([0, 1, 8, 16, 24, 9], 0, 0))       # 7 8 of trumps and low cards
    assert strong > 20 > 0 > weak
    aces = predict("sun", sun_features([7, 15, 23, 6, 3], 0))
    kings = predict("sun", sun_features([6, 14, 22, 5, 1], 0))
    assert aces > 0 > kings


@pytest.mark.parametrize("bidding", BIDDINGS)
def test_the_expert_buys_over_a_strong_hand_and_passes_a_weak_one(bidding):
    # Either way of valuing a bid (the fitted model; the hard bot's played-out contracts over deals weighed by
    # the bids seen): the first to speak, with the face-up card his, holding the Jack and the Nine of its suit
    # and three trumps beside the card, and an ace, buys; with no trump, ace or ten he passes.
    strong = weak = None
    for n in range(3000):
        state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=3, seed=f"expert-bids-{n}"))
        mine = cards_of(state.hands[state.turn])
        trumps = {c & 7 for c in mine + [state.deck[20]] if c >> 3 == state.deck[20] >> 3}
        high = sum(c & 7 in (7, 3) for c in mine)                      # aces and tens
        if strong is None and {4, 2} <= trumps and len(trumps) >= 4 and any(c & 7 == 7 for c in mine):
            strong = state
        if weak is None and len(trumps) == 1 and high == 0:           # the face-up card his only trump
            weak = state
    assert strong is not None and weak is not None
    expert = ExpertBot(bidding=bidding)
    assert expert.choose(view(strong, strong.turn)).bid != "pass"
    assert expert.choose(view(weak, weak.turn)).bid == "pass"
    with pytest.raises(ValueError, match="bidding"):
        ExpertBot(bidding="guess")


def test_the_ceiling_plays_the_solvers_best_card_on_the_true_hands():
    state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=0, seed="ceiling"))
    normal = bot("normal")
    while not (state.phase == "playing" and state.trick_no == 2 and len(deal_mod.legal_actions(state, state.turn)) > 1):
        state, _ = deal_mod.step(state, normal.choose(view(state, state.turn)))
    values = dict(card_values(state))
    choice = CeilingBot().choose_seeing(state)
    assert values[choice.card] == max(values.values())


def test_a_single_bidder_makes_both_tables_contracts_and_the_levels_play_the_cards(monkeypatch):
    # With normal bidding for all four seats the contracts and doubles are normal's at both tables, whoever
    # plays the cards: the board then measures card play alone.
    seen = {}
    original = deal_mod.step

    def calls(levels, bidder):
        out = []

        def spy(state, cmd):
            if type(cmd) in (Bid, Double):
                out.append(cmd)
            return original(state, cmd)
        monkeypatch.setattr(deal_mod, "step", spy)
        result = play_board(*levels, 5, "bidder", bidder=bidder)
        monkeypatch.setattr(deal_mod, "step", original)
        return out, result

    seen["normal"], _ = calls(("normal", "normal"), None)
    seen["ceiling"], result = calls(("ceiling", "normal"), "normal")
    assert seen["ceiling"] == seen["normal"] and seen["normal"]
    assert result.margins != (0, 0)                    # the ceiling's card play differs from normal's


def test_a_card_decision_never_searches_more_than_its_node_cap():
    # At the second trick one deal's search can run to millions of nodes. Each deal's search stops at its
    # limit (solver.SearchLimit), the decision at its cap; with limits too small to solve any deal it plays
    # the cards out (the hard bot's way) and still chooses a legal card, the same one every time.
    decisions = solving = 0
    for n in range(6):
        state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=0, seed=f"cap-{n}"))
        players = [bot("normal") for _ in range(4)]
        while state.phase not in ("scored", "void", "review"):
            v = view(state, state.turn)
            if state.phase == "playing" and state.trick_no in (1, 2) and len(v.legal_actions) > 1:
                capped = ExpertBot(node_cap=20_000)
                choice = capped.choose(v)
                assert choice in v.legal_actions and capped.nodes <= 20_000
                solving += capped.solved > 0
                starved = ExpertBot(solve_limit=30, node_cap=100)
                first = starved.choose(v)
                assert first in v.legal_actions and starved.nodes <= 100 and starved.solved == 0
                assert ExpertBot(solve_limit=30, node_cap=100).choose(v) == first
                decisions += 1
            state, _ = deal_mod.step(state, players[state.turn].choose(v))
    assert decisions >= 12 and solving >= decisions // 2


def test_the_auction_bidding_plays_the_rest_of_the_auction_out():
    # The last to speak in round two, after seven passes: his pass (wala) throws the deal in (0 on every deal), and
    # his Sun ends the auction, so it is worth what the hard bot's played-out Sun is worth on the same deals.
    state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=0, seed="auction"))
    for n in range(7):
        state, _ = deal_mod.step(state, Bid(state.turn, "pass" if n < 4 else "wala"))
    v = view(state, state.turn)
    k = Knowledge(v)
    seeds = list(range(12))
    values = dict(zip((a.bid for a in v.legal_actions), auction_values(v, k, seeds, NormalBot())))
    assert values["wala"] == 0.0
    me = v.viewer
    sun = contract_values(v, k, [(Contract("sun", None, me), me)], seeds,
                          lambda receiver, seed: k.deal_after_contract(random.Random(seed), receiver, v.dealer))[0]
    assert values["sun"] == sun / len(seeds) and values["sun"] != 0.0
