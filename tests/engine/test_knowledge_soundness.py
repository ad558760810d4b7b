"""The hard bot's inference is sound: over deals played with legal but unusual policies, under every profile,
the true hands satisfy everything ``Knowledge`` derives from any seat's view, every sample does too, sampling
never fails, and hard's choice is legal.

Deals come from explicit seeds: half are dealt from a seed as at a table, half from hands built to hold long
runs and fours of a kind (so that seats declare a sira with a hundred, two siras, a run split in two, ...).
The seats' policies are picked per deal: any legal action at random (declaring any valid set of the
projects it holds, or none; doubling open or closed; Sawa whenever it holds and the seat likes), the
highest card, trumps first, the lowest card, or the normal bot. At random moments every seat's view is read.
"""

from __future__ import annotations

import random

import pytest

from domain.baloot import deal as deal_mod
from domain.baloot.bots import HardBot, NormalBot
from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.cards import PLAIN_STRENGTH, TRUMP_STRENGTH, card_name, cards_of
from domain.baloot.events import Bid, ClaimSawa, Declare, PlayCard, StartDeal
from domain.baloot.play import sawa_valid
from domain.baloot.profiles import PROFILES, profile_named
from domain.baloot.projects import evaluate
from domain.baloot.views import view
from domain.errors import DomainError
from tests.engine.given import card, given_deal, make_deck, when

PROFILES_UNDER_TEST = {
    "saudi": PROFILES["saudi"],
    "belote_classic": PROFILES["belote_classic"],
    "belote_declarations": PROFILES["belote_declarations"],
    # The play switches the inference reads, in the other settings they allow.
    "saudi-fourth-seat-no-undertrump": profile_named(
        "saudi", {"partner_winning_exemption": "fourth_seat_or_ace", "undertrump_required": False}),
    "saudi-void-only-sun-doubles": profile_named(
        "saudi", {"partner_winning_exemption": "void_only", "sun_double_threshold": None}),
}
DEALS = 32            # per profile and chunk
CHUNKS = 2
CHECK_SHARE = 0.3     # the share of moments at which every view is checked
SAMPLES = 6           # samples drawn (and checked) per view checked
HARD_SHARE = 0.12     # the share of checked moments at which hard chooses for the seat to act


# ---------------------------------------------------------------- deals and policies


def groups_in(hand: int, scheme: str, sun: bool) -> list[tuple[int, ...]]:
    """Every project group in ``hand``: each run of three or more (every sub-run too) and each four of a
    kind that scores."""
    out = []
    for suit in range(4):
        for low in range(8):
            for high in range(low + 3, 9):
                g = tuple(suit * 8 + r for r in range(low, high))
                if all(hand >> c & 1 for c in g):
                    out.append(g)
    for rank in range(8):
        g = tuple(s * 8 + rank for s in range(4))
        if all(hand >> c & 1 for c in g):
            try:
                evaluate(0, g, scheme, sun)
            except DomainError:
                continue
            out.append(g)
    return out


def random_declaration(rng: random.Random, hand: int, scheme: str, sun: bool) -> tuple:
    """Some valid set of disjoint projects in ``hand`` (possibly none)."""
    groups = groups_in(hand, scheme, sun)
    rng.shuffle(groups)
    used, chosen = 0, []
    for g in groups:
        m = sum(1 << c for c in g)
        if not m & used and rng.random() < 0.7:
            chosen.append(g)
            used |= m
    return tuple(chosen)


def runs_deck(rng: random.Random) -> tuple[int, tuple[int, ...]]:
    """A dealer and a deck whose hands hold long runs (and sometimes four of a kind)."""
    chunks, i = [], 0
    while i < 32:
        n = rng.choice((1, 2, 3, 4, 5, 6))
        chunks.append(list(range(i, min(32, i + n))))
        i += n
    rng.shuffle(chunks)
    order = [c for chunk in chunks for c in chunk]
    if rng.random() < 0.4:                       # four of a kind into one seat's cards
        rank, seat = rng.randrange(8), rng.randrange(4)
        for j, c in enumerate(s * 8 + rank for s in range(4)):
            a, b = order.index(c), 8 * seat + j
            order[a], order[b] = order[b], order[a]
    hands = [order[8 * s:8 * s + 8] for s in range(4)]
    dealer, receiver = rng.randrange(4), rng.randrange(4)   # the deck deals these hands if it buys
    faceup = rng.choice(hands[receiver])
    texts = []
    for h in hands:
        rng.shuffle(h)
        texts.append(" ".join(card_name(c) for c in h))
    return dealer, make_deck(dealer, texts, card_name(faceup), receiver)


def _strength(card: int, trump: int) -> int:
    return 100 + TRUMP_STRENGTH[card & 7] if card >> 3 == trump else PLAIN_STRENGTH[card & 7]


# Bids and doubles at random, leaning to Hokum (the contract with trump obligations) and closed doubles.
WEIGHTS = {"pass": 3, "wala": 3, "hokum": 3, "confirm": 4, "sun": 1, "ashkal": 0.5, "before_you": 1, "kawesh": 0.3}


def _weight(action) -> float:
    if type(action) is Bid:
        return WEIGHTS[action.bid]
    return 2 if action.call == "pass" or action.closed else 1


def make_policy(kind: str, rng: random.Random):
    normal = NormalBot()

    def act(state, seat):
        actions = deal_mod.legal_actions(state, seat)
        if state.phase != "playing":
            if kind == "normal":
                return normal.choose(view(state, seat))
            return rng.choices(actions, [_weight(a) for a in actions])[0]
        if max(h.bit_count() for h in state.hands) <= 3 and rng.random() < 0.3 and sawa_valid(state, seat):
            return ClaimSawa(seat)
        if any(type(a) is Declare for a in actions) and rng.random() < 0.85:
            groups = random_declaration(rng, state.hands[seat], state.profile.projects,
                                        state.contract.kind == "sun")
            if groups:
                return Declare(seat, groups)
        plays = [a for a in actions if type(a) is PlayCard]
        if kind == "random":
            return rng.choice(plays)
        if kind == "normal":
            choice = normal.choose(view(state, seat))
            return choice if type(choice) is PlayCard else rng.choice(plays)
        if kind == "lowest":
            return min(plays, key=lambda a: (_strength(a.card, state.trump), a.card))
        if kind == "trumps":
            return max(plays, key=lambda a: (a.card >> 3 == state.trump, -_strength(a.card, state.trump), a.card))
        return max(plays, key=lambda a: (_strength(a.card, state.trump), a.card))     # "highest"

    return act


POLICY_KINDS = ("random", "random", "highest", "trumps", "lowest", "normal")


# ---------------------------------------------------------------- the checks


def check_view(state, seat: int, rng: random.Random) -> Knowledge:
    v = view(state, seat)
    k = Knowledge(v)
    # (a) sampling never fails; every sample respects every inference (checked directly, then by ``check``).
    for _ in range(SAMPLES):
        hands, declared = k.sample(random.Random(rng.getrandbits(32)))
        assert hands[seat] == state.hands[seat]
        assert [h.bit_count() for h in hands] == [h.bit_count() for h in state.hands]
        assert not any(hands[s] & hands[t] for s in range(4) for t in range(s))
        for s in range(4):
            if s != seat:
                assert not hands[s] & k.excluded[s], f"a sample gives seat {s} cards its plays exclude"
                assert k.known[s] & ~hands[s] == 0
        for s, groups in declared:
            cards = [c for g in groups for c in g]
            assert len(cards) == len(set(cards))
            assert all((hands[s] | k.played_by[s]) >> c & 1 for c in cards)
        assert k.check(hands) == []
    # (b) the true deal satisfies everything derived, and the view never needed relaxing.
    assert k.check(state.hands, state.declared) == []
    assert not k.relaxed
    return k


def check_hard(state, seat: int) -> None:
    v = view(state, seat)
    cmd = HardBot().choose(v)
    # (c) a legal action: one the view lists, or a Sawa that holds; the strict engine accepts it.
    assert cmd in v.legal_actions or (type(cmd) is ClaimSawa and sawa_valid(state, seat))
    deal_mod.decide(state, cmd)


def play_checked_deal(profile, seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    if seed % 2:
        dealer, deck = runs_deck(rng)
        start = StartDeal(dealer=dealer, profile=profile, deck=deck)
    else:
        start = StartDeal(dealer=seed % 4, profile=profile, seed=f"sound-{seed}")
    policies = [make_policy(rng.choice(POLICY_KINDS), rng) for _ in range(4)]
    state, _ = deal_mod.step(deal_mod.INITIAL, start)
    views = hard = 0
    while state.phase in ("bidding", "doubling", "playing"):
        seat = state.turn
        if rng.random() < CHECK_SHARE:
            for s in range(4):
                check_view(state, s, rng)
                views += 1
            if rng.random() < (HARD_SHARE if state.phase != "doubling" else 0.5):
                check_hard(state, seat)
                hard += 1
        state, _ = deal_mod.step(state, policies[seat](state, seat))
    return views, hard


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("name", sorted(PROFILES_UNDER_TEST))
def test_what_knowledge_infers_holds_for_the_true_hands(name, chunk):
    profile = PROFILES_UNDER_TEST[name]
    views = hard = 0
    for n in range(DEALS):
        v, h = play_checked_deal(profile, 1000 * chunk + n)
        views += v
        hard += h
    assert views > 100 and hard > 3


def test_hidden_declarations_of_several_projects_are_checked_at_many_moments():
    # Deals with long runs reach trick 1 with several projects declared by one seat, their cards hidden.
    seen = 0
    for n in range(1, 100, 2):
        rng = random.Random(n)
        dealer, deck = runs_deck(rng)
        state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=dealer, profile=PROFILES["saudi"], deck=deck))
        policies = [make_policy("random", rng) for _ in range(4)]
        while state.phase in ("bidding", "doubling", "playing"):
            seat = state.turn
            if state.phase == "playing" and state.trick_no == 0 and state.declared:
                for s in range(4):
                    k = check_view(state, s, rng)
                    seen += sum(len(kinds) > 1 for kinds in k.hidden.values())
            state, _ = deal_mod.step(state, policies[seat](state, seat))
    assert seen > 100


def test_check_names_what_a_deal_contradicts():
    # Once seat 1's plays exclude a card (a void, no trump, no higher trump), a deal giving it that card
    # is named as contradicting the view.
    rng = random.Random(3)
    for n in range(200):
        state, _ = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=0, seed=f"contradict-{n}"))
        policies = [make_policy("random", rng) for _ in range(4)]
        while state.phase in ("bidding", "doubling", "playing"):
            k = Knowledge(view(state, 0)) if state.phase == "playing" else None
            if k is not None and k.excluded[1] & ~k.played & ~k.hand and state.hands[1] & ~k.known[1]:
                x = cards_of(k.excluded[1] & ~k.played & ~k.hand)[0]
                holder = next(s for s in range(4) if state.hands[s] >> x & 1)
                hands = list(state.hands)
                y = cards_of(hands[1] & ~k.known[1])[0]
                hands[1] ^= 1 << y | 1 << x
                hands[holder] ^= 1 << x | 1 << y
                assert k.check(state.hands) == []
                assert any("exclude" in line for line in k.check(hands))
                return
            state, _ = deal_mod.step(state, policies[state.turn](state, state.turn))
    pytest.fail("no void was shown")


def test_a_view_that_illegal_plays_contradict_is_still_sampled_without_the_inferences_from_plays():
    # A recorded table stores illegal plays as made: seat 1 plays a spade on each of A♥, A♦ and A♣ while
    # holding all three suits, so its plays "prove" it holds nothing but spades, and seat 2 holds every
    # spade left. No deal respects that; the sampler gives up the inferences from plays, nothing else.
    state = given_deal(dealer=3, faceup="QD", receiver=0, table_mode="recorded", hands=[
        "AH KH QH AD KD AC KC QD", "7S 8S 9S TH TD TC JH JD", "TS JS QS KS AS 7C 8C 9C", "7H 8H 9H 7D 8D 9D JC QC"])
    state = when(state, Bid(0, "sun"), *(PlayCard(s, card(c)) for s, c in zip(
        [0, 1, 2, 3] * 3, "AH 7S 8C 7H AD 8S 9C 7D AC 9S 7C JC".split())))
    assert [o[2] for o in state.offences] == ["revoke"] * 3
    k = Knowledge(view(state, 2))
    for seed in range(50):
        hands, _ = k.sample(random.Random(seed))
        assert k.relaxed
        assert [h.bit_count() for h in hands] == [h.bit_count() for h in state.hands]
        assert hands[0] & k.known[0] == k.known[0] and hands[2] == state.hands[2]
    assert any("exclude" in line for line in k.check(state.hands))
