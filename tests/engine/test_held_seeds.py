"""Shared boards hold their seeds back: a table of boards that other tables still play stores no seed when a
deal ends (the seed of a board is every other table's cards), deals its next board anyway, and reveals every
held seed at once when the boards are done; until then a finished deal is not laid open, and the seed is
never shown where the hands would not be."""

from __future__ import annotations

import pytest

from domain.baloot import game as game_mod
from domain.baloot.bots import bot
from domain.baloot.events import (
    DealNext, DealStarted, RecordResult, RevealHeldSeeds, SeedRevealed, StartGame,
)
from domain.baloot.views import game_view, view
from domain.errors import DomainError


def seed_of(n: int) -> str:
    return f"board-{n}"


def play_deal(g, *, deals=None, hold=True) -> tuple[game_mod.GameState, list]:
    """The current deal played out by bots, with what follows it by itself; the game and the events."""
    stored = []
    number = g.deal_no
    while g.phase == "playing" and g.deal_no == number and g.deal.phase not in ("scored", "void", "annulled"):
        deal = g.deal
        cmd = RecordResult() if deal.phase == "review" else bot("normal").choose(view(deal, deal.turn))
        events = game_mod.decide(g, cmd)
        for e in events:
            g = game_mod.evolve(g, e)
        stored += events
    more = game_mod.follow_on(g, seed_of, deals, hold_seeds=hold)
    for e in more:
        g = game_mod.evolve(g, e)
    return g, stored + more


def started():
    g, _ = game_mod.step(game_mod.INITIAL, StartGame(first_dealer=0))
    g, _ = game_mod.step(g, DealNext(seed=seed_of(1)))
    return g


def test_a_board_s_seed_is_held_and_its_next_board_dealt():
    g, events = play_deal(started())
    assert not any(isinstance(e, SeedRevealed) for e in events)
    assert any(isinstance(e, DealStarted) for e in events) and g.deal_no == 2
    assert [n for n, _ in g.held_seeds] == [1] and game_mod.held_deals(g) == [1]


def test_without_holding_the_next_deal_waits_for_the_seed():
    g = _ended_deal(started())
    with pytest.raises(DomainError) as refused:
        game_mod.decide(g, DealNext(seed=seed_of(2)))
    assert refused.value.rule == "seed_unrevealed"
    assert isinstance(game_mod.decide(g, DealNext(seed=seed_of(2), hold_seed=True))[0], DealStarted)


def _ended_deal(g):
    """``g`` with its current deal played out and nothing following."""
    while g.deal.phase not in ("scored", "void", "annulled"):
        deal = g.deal
        cmd = RecordResult() if deal.phase == "review" else bot("normal").choose(view(deal, deal.turn))
        for e in game_mod.decide(g, cmd):
            g = game_mod.evolve(g, e)
    return g


def test_a_game_of_boards_ends_after_them_with_every_seed_held_then_reveals_them_all():
    g = started()
    for _ in range(3):
        g, events = play_deal(g, deals=3)
    assert g.phase == "ended" and g.end_reason == "deals"
    assert game_mod.held_deals(g) == [1, 2, 3]
    assert game_mod.follow_on(g, seed_of, 3, hold_seeds=True) == []          # nothing more by itself
    reveal = RevealHeldSeeds(seeds=tuple((n, seed_of(n)) for n in (1, 2, 3)))
    revealed = game_mod.decide(g, reveal)
    assert revealed == [SeedRevealed(seed_of(1), deal_no=1), SeedRevealed(seed_of(2), deal_no=2),
                        SeedRevealed(seed_of(3))]
    for e in revealed:
        g = game_mod.evolve(g, e)
    assert game_mod.held_deals(g) == [] and g.deal.seed == seed_of(3)


def test_a_held_seed_is_checked_against_its_commitment():
    g, _ = play_deal(started())
    with pytest.raises(DomainError) as wrong:
        game_mod.decide(g, RevealHeldSeeds(seeds=((1, "not-the-seed"),)))
    assert wrong.value.rule == "seed_mismatch"
    with pytest.raises(DomainError) as unknown:
        game_mod.decide(g, RevealHeldSeeds(seeds=((2, seed_of(2)),)))     # deal 2 is being played
    assert unknown.value.rule == "seed_not_committed"


def test_a_finished_board_is_not_laid_open_before_its_seed_is_out():
    g = _ended_deal(started())
    mine = view(g.deal, 0)
    assert mine.hands is None and mine.hand is not None and mine.seed is None
    after = game_mod.evolve(g, SeedRevealed(seed_of(1)))
    assert view(after.deal, 0).hands is not None                      # laid open once the seed is out
    assert game_view(after, None, hands="after_deal").deal.hands is not None


def test_the_seed_is_shown_only_where_the_hands_would_be():
    g = _ended_deal(started())
    g = game_mod.evolve(g, SeedRevealed(seed_of(1)))
    assert view(g.deal, None, hands="never").seed is None and view(g.deal, None, hands="never").hands is None
    assert view(g.deal, None, hands="after_deal").seed == seed_of(1)
    assert view(g.deal, 2).seed == seed_of(1)
