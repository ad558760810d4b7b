"""Card values from the player's view, sampled and solved (domain/baloot/viewvalues.py): on the hand-made deal of
the review's test the right leads come out right where the rollouts got them wrong; where the view leaves the
hidden cards one way to lie (every deal of them enumerated) they are the exact solver's values on the true
hands, and so they are wherever the sample is the true deal (the sampler replaced: trick 1's pending
declarations and Baloot included, cards of different values included, which the one-way views of bot deals
rarely have); only the view is read; the same events and seed give the same values, decision for decision as
the fair-play analysis makes them, in its order.

The bids and doubles (``view_call_values``): the analysis' bid and double decisions, its options in its order
and names; where the sample is the true deal (the sampler replaced) each bid's value is the analysis' exact
``true`` value and each double's gain too; two states that differ only in hidden cards (two opponents' cards
swapped, in the bidding and in the doubling) give the same values; the same events and seed the same values,
another seed others; a hand that buys Sun (four aces and a ten; the review's planted Sun, which the rollouts value
below passing) values Sun above passing."""

from __future__ import annotations

import functools
import itertools

from domain.baloot.bots import bot
from domain.baloot.bots.knowledge import Knowledge
from domain.baloot.bots.simple import _plays
from domain.baloot.cards import cards_of
from domain.baloot.deal import INITIAL, evolve
from domain.baloot.events import CardPlayed
from domain.baloot.fairplay import analyse_deal, play_deal
from domain.baloot.solver import card_values
from domain.baloot.views import view
from bench.viewvalues import call_states
from domain.baloot.viewvalues import view_call_values, view_card_values, view_values
from tests.engine.test_review import BLUNDER, planted_deal

SAMPLES = 8


@functools.cache
def _blunder():
    events, _ = planted_deal(BLUNDER)
    return events, view_values(events, seed=3, samples=SAMPLES, seats=(0,))


def _decisions(events, seats=(0, 1, 2, 3)):
    """The (index, state before) of every card chosen among several by ``seats``."""
    state, out = INITIAL, []
    for index, event in enumerate(events):
        if isinstance(event, CardPlayed) and state.phase == "playing" and event.seat in seats \
                and len(_plays(view(state, event.seat))) > 1:
            out.append((index, state))
        state = evolve(state, event)
    return out


def _named(events, index, values) -> dict[str, float]:
    state = dict(_decisions(events))[index]
    from domain.baloot.cards import card_name
    return {card_name(a.card): x for a, x in zip(_plays(view(state, state.turn)), values)}


def test_the_ace_lead_is_right_from_the_players_view_where_the_rollouts_said_seven():
    events, values = _blunder()
    decisions = analyse_deal(events, seed=3, samples=16, seats=(0,), kinds=("card",))
    first = next(d for d in decisions if d.trick == 1)
    # The rollouts (the analysis' honest values) prefer leading 7♦ at once; the true hands say it fails the buyer.
    honest = dict(zip(first.legal, first.honest))
    assert honest["7D"] > honest["AS"]
    assert first.true[first.legal.index("7D")] < 0 < first.true[first.legal.index("AS")]
    # Sampled and solved, 7♦ is worth clearly less than A♠ from seat 0's own view.
    mine = _named(events, first.index, values[first.index])
    assert mine["7D"] <= mine["AS"] - 5.0, mine
    assert max(mine, key=mine.get) != "7D"
    # Trick 7, A♦ 7♦ left: A♦ drops the bare king (the Kaboot) and is the best by far.
    seventh = next(d for d in decisions if d.trick == 7)
    mine = _named(events, seventh.index, values[seventh.index])
    assert set(mine) == {"AD", "7D"} and mine["AD"] - mine["7D"] >= 10.0, mine


def _one_way(state) -> bool:
    """Whether the view of the seat to play leaves the hidden cards exactly one way to lie (every deal of
    them checked against what the view proves)."""
    v = view(state, state.turn)
    k = Knowledge(v)
    others = [s for s in range(4) if s != state.turn]
    hidden = 0
    for s in others:
        hidden |= state.hands[s]
    cards = cards_of(hidden)
    if len(cards) > 9:
        return False
    ways = 0
    for hands in _deals(cards, [(s, state.hands[s].bit_count()) for s in others]):
        hands[state.turn] = state.hands[state.turn]
        ways += not k.check(hands, state.declared)
    assert ways >= 1                                   # the truth is one of them
    return ways == 1


def _deals(cards, sizes):
    """Every deal of ``cards`` to the seats of ``sizes`` ((seat, how many), in order): hands by seat."""
    if not sizes:
        yield [0, 0, 0, 0]
        return
    (seat, n), rest = sizes[0], sizes[1:]
    for mine in itertools.combinations(cards, n):
        for hands in _deals([c for c in cards if c not in mine], rest):
            for c in mine:
                hands[seat] |= 1 << c
            yield hands


@functools.cache
def _bot_deals(n: int = 6) -> list:
    bots = [bot("normal") for _ in range(4)]
    return [play_deal(f"viewvalues-{i}", lambda s: bots[s.turn].choose(view(s, s.turn)), dealer=i % 4)
            for i in range(n)]


def test_where_the_hidden_cards_lie_one_way_the_values_are_the_exact_solvers_on_the_true_hands():
    checked = 0
    for events in _bot_deals():
        for _, state in _decisions(events):
            if state.trick_no < 5 or not _one_way(state):
                continue
            mine = view_card_values(state, seed=5, samples=4)
            exact = dict(card_values(state))
            assert [c for c, _ in mine] == [a.card for a in _plays(view(state, state.turn))]
            assert {c: x for c, x in mine} == {c: exact[c] for c, _ in mine}, (state.trick_no, mine, exact)
            checked += 1
    assert checked >= 3, checked


def test_the_same_events_and_seed_give_the_same_values_for_the_analysis_decisions_in_its_order():
    events = next(e for e in _bot_deals() if _decisions(e))
    values = view_values(events, seed=1, samples=2)
    assert view_values(events, seed=1, samples=2) == values
    decisions = analyse_deal(events, seed=1, samples=2, kinds=("card",))
    assert list(values) == [d.index for d in decisions]
    for d in decisions:
        assert len(values[d.index]) == len(d.legal)
        state = dict(_decisions(events))[d.index]
        from domain.baloot.cards import card_name
        assert tuple(card_name(a.card) for a in _plays(view(state, state.turn))) == d.legal
    # One seat's decisions are the same alone as among all four (each position is sampled from its view).
    assert view_values(events, seed=1, samples=2, seats=(2,)) == {
        i: x for i, x in values.items() if events[i].seat == 2}
    # Another seed draws other deals: the values of some early decision move.
    other = view_values(events, seed=2, samples=2, seats=(0, 1))
    assert any(other[i] != values[i] for i in other)


def test_only_the_view_is_read():
    # Two states that differ only in the hidden hands (two opponents' cards swapped) give the same values.
    events, _ = _blunder()
    _, state = next((i, s) for i, s in _decisions(events, seats=(0,)) if s.trick_no == 2)
    from msgspec.structs import replace
    h = list(state.hands)
    a, b = h[1] & -h[1], h[3] & -h[3]                 # the lowest card of seats 1 and 3
    h[1], h[3] = h[1] & ~a | b, h[3] & ~b | a
    swapped = replace(state, hands=tuple(h))
    assert view(swapped, 0).hand == view(state, 0).hand
    assert view_card_values(swapped, seed=3, samples=2) == view_card_values(state, seed=3, samples=2)


def test_a_sample_that_is_the_true_deal_is_valued_as_the_exact_solver_values_the_true_hands(monkeypatch):
    # Every sample replaced by the true hands and declarations: each decision of two played deals, trick 1's
    # pending declarations and Baloot included, is then exactly the solver's on the true state (the position
    # built from the view loses nothing the solver counts).
    import domain.baloot.viewvalues as vv

    truth = {}

    class Told(Knowledge):
        def sample(self, rng):
            return truth["hands"], truth["declared"]

    monkeypatch.setattr(vv, "Knowledge", Told)
    checked = differ = 0
    for events in _bot_deals()[:3]:
        for _, state in _decisions(events):
            truth.update(hands=state.hands, declared=state.declared)
            mine = view_card_values(state, seed=0, samples=1)
            exact = dict(card_values(state))
            assert {c: x for c, x in mine} == {c: exact[c] for c, _ in mine}, (state.trick_no, mine, exact)
            checked += 1
            differ += len(set(exact.values())) > 1
    assert checked >= 40 and differ >= 10, (checked, differ)


# ------------------------------------------------------------------ bids and doubles


@functools.cache
def _call_deals() -> list:
    """Two deals of normal bots with bids in both rounds and doubles (their events)."""
    bots = [bot("normal") for _ in range(4)]
    return [play_deal(f"calls-{i}", lambda s: bots[s.turn].choose(view(s, s.turn)), dealer=i % 4) for i in (0, 3)]


def _call_values(state, seed, samples):
    from domain.baloot.viewvalues import view_bid_values, view_double_values
    return (view_bid_values if state.phase == "bidding" else view_double_values)(state, seed, samples)


@functools.cache
def _calls_once(seats=(0, 1, 2, 3), seed: int = 1):
    return [view_call_values(events, seed=seed, samples=1, seats=seats) for events in _call_deals()]


def _names(state) -> tuple:
    """The options of the bid or double decision at ``state`` by their names (none solved)."""
    import domain.baloot.viewvalues as vv
    from domain.baloot.fairplay import _bid_name
    v = view(state, state.turn)
    if state.phase == "bidding":
        return tuple(_bid_name(a) for a, _ in vv.bid_options(v))
    return tuple(a.call for a in vv.double_options(v))


def test_the_calls_are_the_analysis_decisions_with_its_options_in_its_order():
    kinds = set()
    for events, values, alone in zip(_call_deals(), _calls_once(), _calls_once((1,))):
        decisions = analyse_deal(events, seed=1, samples=2, kinds=("bid", "double"))
        assert list(values) == [d.index for d in decisions]
        states = call_states(events)
        for d in decisions:
            assert _names(states[d.index]) == d.legal and len(values[d.index]) == len(d.legal)
            kinds.add(d.kind)
        # One seat alone gets the same values as among all four.
        assert alone == {i: x for i, x in values.items() if events[i].seat == 1}
    assert kinds == {"bid", "double"}, kinds


def test_the_same_events_and_seed_give_the_same_call_values_another_seed_others():
    events = _call_deals()[1]
    again = view_call_values(events, seed=1, samples=1, seats=(1,))
    assert again == _calls_once((1,))[1] and again
    other = view_call_values(events, seed=2, samples=1, seats=(1,))
    assert list(other) == list(again)
    assert any(other[i] != x for i, x in again.items())


def test_a_sample_that_is_the_true_deal_gives_the_analysis_exact_values_of_the_calls(monkeypatch):
    # Every sample replaced by the true deal (the rest of the pack as it lies, the hands as dealt): each bid is
    # valued as the analysis' ``true`` (the solver's ``contract_value`` on the true deal) and each double's gain
    # too: the position built from the view (rules, order, scores) loses nothing the solver counts.
    import domain.baloot.viewvalues as vv
    from domain.baloot.bidding import complete_deal

    truth = {}

    class Told(Knowledge):
        def deal_after_contract(self, rng, receiver, dealer):
            s = truth["state"]
            return complete_deal(s.deck, s.dealer, s.first_five, receiver)

        def sample(self, rng):
            return truth["state"].hands, truth["state"].declared

    monkeypatch.setattr(vv, "Knowledge", Told)
    checked, kinds = 0, set()
    for events in _call_deals():
        states = call_states(events)
        for d in analyse_deal(events, seed=1, samples=1, kinds=("bid", "double")):
            truth["state"] = states[d.index]
            values = tuple(x for _, x in _call_values(states[d.index], 0, 1))
            assert values == d.true, (d.kind, d.legal, values, d.true)
            checked += 1
            kinds.add(d.kind)
    assert checked >= 10 and kinds == {"bid", "double"}, (checked, kinds)


def _swapped(state, a: int, b: int):
    """``state`` with the lowest hidden card of seats ``a`` and ``b`` swapped (their hands, first five and the
    pack as the deal has them)."""
    from msgspec.structs import replace
    h, f = list(state.hands), list(state.first_five)
    x, y = h[a] & -h[a], h[b] & -h[b]
    h[a], h[b] = h[a] & ~x | y, h[b] & ~y | x
    if f[a] >> (x.bit_length() - 1) & 1 and f[b] >> (y.bit_length() - 1) & 1:
        f[a], f[b] = f[a] & ~x | y, f[b] & ~y | x
    cx, cy = x.bit_length() - 1, y.bit_length() - 1
    deck = tuple(cy if c == cx else cx if c == cy else c for c in state.deck)
    return replace(state, hands=tuple(h), first_five=tuple(f), deck=deck)


def test_only_the_view_is_read_by_the_calls():
    checked = set()
    for events in _call_deals():
        for index, state in call_states(events).items():
            if index not in _calls_once()[_call_deals().index(events)] or state.phase in checked:
                continue
            seat = state.turn
            a, b = (seat + 1) & 3, (seat + 3) & 3
            swapped = _swapped(state, a, b)
            assert swapped.hands != state.hands
            assert view(swapped, seat).hand == view(state, seat).hand
            assert _call_values(swapped, 3, 2) == _call_values(state, 3, 2)
            checked.add(state.phase)
    assert checked == {"bidding", "doubling"}, checked


def _dealt(deck):
    from domain.baloot.deal import step
    from domain.baloot.events import StartDeal
    state, _ = step(INITIAL, StartDeal(dealer=3, deck=deck))
    assert state.phase == "bidding" and state.turn == 0
    return state


def test_a_hand_that_buys_sun_values_sun_above_passing():
    import random

    from domain.baloot.cards import parse_card
    from domain.baloot.fairplay import bid_choices
    from domain.baloot.viewvalues import view_bid_values
    from tests.engine.test_review import planted_deck

    # Seat 0 speaks first on four aces and the ten of spades (three then two from the dealer's left).
    mine, faceup = [parse_card(c) for c in ("AS", "AH", "AC", "AD", "TS")], parse_card("7C")
    rest = [c for c in range(32) if c not in mine and c != faceup]
    random.Random(0).shuffle(rest)
    deck = rest[:]
    deck[0:0] = mine[:3]
    deck[12:12] = mine[3:]
    deck[20:20] = [faceup]
    values = dict(view_bid_values(_dealt(tuple(deck)), 1, SAMPLES))
    assert values["sun"] > values["pass"] + 20 and max(values, key=values.get) == "sun", values
    # The review's planted Sun (A K T of spades and of clubs dealt as A♠ K♠ T♠ A♣ K♣ first): the rollouts value
    # Sun below passing, sampled and solved it is worth buying.
    state = _dealt(planted_deck())
    values = dict(view_bid_values(state, 1, SAMPLES))
    options, honest, _, _ = bid_choices(state, 1, 16)
    rollouts = dict(zip((n for n, _ in options), honest))
    assert rollouts["sun"] < rollouts["pass"] == 0.0, rollouts
    assert values["sun"] > values["pass"] + 10 and max(values, key=values.get) == "sun", values
