"""``step``: decide, then fold the events, private ones included (the loop every caller of a decider needs)."""

from domain.baloot import deal as deal_mod
from domain.baloot import game as game_mod
from domain.baloot.events import CardsDealt, DealNext, DealStarted, StartDeal, StartGame
from domain.baloot.shuffle import deck_from_seed


def test_a_deal_step_folds_the_private_cards_dealt_too():
    state, events = deal_mod.step(deal_mod.INITIAL, StartDeal(dealer=2, seed="step-1"))
    assert [type(e) for e in events] == [DealStarted, CardsDealt] and CardsDealt.private
    assert state == deal_mod.fold(events)
    assert state.deck == deck_from_seed("step-1") and state.phase == "bidding" and state.turn == 3


def test_a_game_step_is_decide_then_evolve():
    g, started = game_mod.step(game_mod.INITIAL, StartGame(first_dealer=1))
    g, dealt = game_mod.step(g, DealNext(seed="step-2"))
    assert g == game_mod.fold(started + dealt)
    assert g.deal.dealer == 1 and g.deal.deck == deck_from_seed("step-2")
