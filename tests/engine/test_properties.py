"""Properties over random legal games, for every profile and both table modes."""

import random

import msgspec
from hypothesis import given, settings, strategies as st

from domain.baloot import deal as deal_mod
from domain.baloot import game as game_mod
from domain.baloot.cards import FULL_DECK, card_name, cards_of
from domain.baloot.events import Bid, CallQayd, CardPlayed, DealNext, DealScored, Double, PlayCard, StartGame
from domain.events import RevealSeed
from domain.baloot.audit import audit_record
from domain.baloot.handrecord import encode_record, export_record, parse_record
from domain.baloot.profiles import PROFILES
from domain.baloot.simulate import next_action, random_policy
from domain.baloot.views import view
from tests.engine.given import given_deal, when

PROFILE_NAMES = sorted(PROFILES)


def conserved(state) -> bool:
    """The 32 cards are each in exactly one place: a hand, the trick, or a completed trick."""
    places = list(state.hands) + [sum(1 << c for c in state.trick)]
    places += [sum(1 << c for c in cards) for _, cards in state.history]
    total = 0
    for mask in places:
        if total & mask:
            return False
        total |= mask
    return total == FULL_DECK


def hidden_cards_absent(state, seat) -> bool:
    """While the deal is live, no card another seat holds appears in ``seat``'s view (unless public)."""
    if state.phase in ("scored", "void"):
        return True
    encoded = msgspec.json.encode(view(state, seat)).decode()
    public = {state.faceup}
    if state.trick_no >= 1:
        public |= {c for _, groups in state.declared for g in groups for c in g}
    for other in range(4):
        if other == seat:
            continue
        for c in cards_of(state.hands[other]):
            if c not in public and f'"{card_name(c)}"' in encoded:
                return False
    return True


def sloppy_action(state, rng, policy):
    """At recorded tables sometimes play any held card, and sometimes call Qayd on a past action."""
    seat = state.turn
    if state.phase == "playing" and rng.random() < 0.05:
        return PlayCard(seat, rng.choice(cards_of(state.hands[seat])))
    if state.phase in ("playing", "review") and state.actions and rng.random() < 0.03:
        caller = rng.randrange(4)
        index = rng.randrange(state.actions)
        if deal_mod.actor_of(state, index) & 1 != caller & 1:
            return CallQayd(caller, index)
    return next_action(state, policy)


def play_checked_game(seed: int, profile_name: str, table_mode: str):
    rng = random.Random(seed)
    policy = [random_policy(rng) for _ in range(4)]
    g = game_mod.INITIAL
    events = []
    deals = []

    def apply(cmd):
        nonlocal g
        g, new = game_mod.step(g, cmd)
        events.extend(new)
        return new

    apply(StartGame(first_dealer=seed % 4, profile=PROFILES[profile_name], table_mode=table_mode))
    for n in range(60):
        deal_events = apply(DealNext(seed=f"{seed}/{n}"))
        while g.deal.phase not in ("scored", "void"):
            state = g.deal
            cmd = sloppy_action(state, rng, policy) if table_mode == "recorded" else next_action(state, policy)
            deal_events += apply(cmd)
            state = g.deal
            if state.contract is not None:
                assert conserved(state)
            for seat in range(4):
                assert hidden_cards_absent(state, seat)
        deal_events += apply(RevealSeed(f"{seed}/{n}"))
        deals.append((g.deal, [e for e in deal_events if not isinstance(e, game_mod.GameEnded)]))
        if g.phase == "ended":
            break
    return g, events, deals


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), profile=st.sampled_from(PROFILE_NAMES),
       table=st.sampled_from(["strict", "recorded"]))
def test_random_games_keep_every_invariant(seed, profile, table):
    g, events, deals = play_checked_game(seed, profile, table)
    # Replaying the events rebuilds an equal state.
    assert game_mod.fold(events) == g
    for final, deal_events in deals:
        assert deal_mod.fold(deal_events) == final
        r = final.result
        if r.void:
            assert r.game_points == (0, 0)
            continue
        if r.qayd is None:
            total = 162 if final.contract.kind == "hokum" else 130
            assert sum(final.points) == total
            assert r.card_points == final.points
            c = final.contract
            if (final.profile.scoring == "game_points" and c.multiplier == 1 and not r.failed
                    and not r.kaboot and not any(r.project_gp) and not c.gahwa):
                assert sum(r.game_points) - sum(r.baloot) == (16 if c.kind == "hokum" else 26)
        # Export, then import: the audit finds the same result.
        report = audit_record(parse_record(encode_record(export_record(deal_events))))
        assert report.game_points == r.game_points
        assert report.valid == (not final.offences)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_game_scores_are_the_sum_of_the_deals(seed):
    g, events, deals = play_checked_game(seed, "saudi", "strict")
    scored = [e.result.game_points for e in events if isinstance(e, DealScored)]
    assert g.scores == (sum(a for a, _ in scored), sum(b for _, b in scored))
    assert g.winner is not None and g.scores[g.winner] >= g.scores[1 - g.winner]


def test_a_spectator_sees_no_hand_unless_the_table_shows_them():
    _, _, deals = play_checked_game(5, "saudi", "strict")
    state = deal_mod.fold(deals[0][1][:15])
    assert view(state, None).hands is None and view(state, None).hand is None
    shown = view(state, None, hands="always").hands
    assert [set(h) for h in shown] == [{card_name(c) for c in cards_of(m)} for m in state.hands]


def test_played_events_are_shared_constants_for_plain_plays():
    # decide() reuses one frozen event per (seat, card) for plain plays (no Baloot, no offence): the same
    # object comes back for the same play, and it equals the event built by value.
    state = when(given_deal(dealer=3, deck=tuple(range(32))), Bid(0, "hokum"), Bid(1, "pass"), Bid(2, "pass"),
                 Bid(3, "pass"), Bid(0, "confirm"), Double(1, "pass"), Double(3, "pass"))
    play = next(a for a in deal_mod.legal_actions(state, 0) if isinstance(a, PlayCard))
    first, again = deal_mod.decide(state, play), deal_mod.decide(state, PlayCard(0, play.card))
    assert first == [CardPlayed(0, play.card)]
    assert first[0] is again[0]
