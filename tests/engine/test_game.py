"""§7 and §2: the game to the target, dealer rotation, void deals, the seed commitment."""

import hashlib

import pytest

from domain.baloot import game as game_mod
from domain.baloot.events import AnnulDeal, ForfeitGame
from domain.baloot.events import (
    AbandonGame, EndGame, DealNext, DealScored, DealStarted, DealVoided, GameEnded, GameStarted, StartGame,
)
from domain.errors import DomainError
from domain.events import RevealSeed
from domain.baloot.events import Contract, DealResult, SeedRevealed
from msgspec.structs import replace
from domain.baloot.profiles import SAUDI, profile_named
from domain.baloot.shuffle import deck_from_seed


def started(first_dealer=0, profile=SAUDI):
    return game_mod.evolve(game_mod.INITIAL, GameStarted(profile=profile, table_mode="strict", first_dealer=first_dealer))


def with_scores(g, a, b):
    return replace(g, scores=(a, b))


def scored(a, b, **kw):
    return DealScored(DealResult(card_points=(0, 0), game_points=(a, b), **kw))


def next_deal(g, seed="s"):
    g, _ = game_mod.step(g, DealNext(seed=seed))
    return g


def test_the_first_deal_is_dealt_by_the_drawn_dealer_and_the_deal_passes_on():
    g = next_deal(started(first_dealer=2))
    assert g.deal.dealer == 2 and g.deal.turn == 3          # speaking starts at dealer + 1
    g = game_mod.evolve(g, DealVoided("all_wala"))
    assert g.dealer == 3
    g = next_deal(game_mod.evolve(g, SeedRevealed("s")), seed="t")
    assert g.deal.dealer == 3 and g.deal.scores_before == (0, 0)


def test_scores_before_each_deal_come_from_the_game():
    g = with_scores(started(), 100, 40)
    events = game_mod.decide(g, DealNext(seed="x"))
    assert isinstance(events[0], DealStarted) and events[0].scores_before == (100, 40)


def test_a_deal_publishes_the_commitment_and_not_the_seed():
    events = game_mod.decide(started(), DealNext(seed="secret-7"))
    started_event = events[0]
    assert started_event.commitment == hashlib.sha256(b"baloot-seed/1:secret-7").hexdigest()
    assert "secret-7" not in repr(started_event)
    # The stored event holds no card; the cards follow in the private cards_dealt, derived from the seed.
    assert started_event.deck is None
    assert type(events[1]).private and events[1].deck == deck_from_seed("secret-7")
    assert all(not type(e).private for e in events[:1])


def test_the_next_deal_waits_for_the_seed_to_be_revealed():
    g = game_mod.evolve(next_deal(started(), seed="a"), DealVoided("all_wala"))
    with pytest.raises(DomainError) as info:
        game_mod.decide(g, DealNext(seed="b"))
    assert info.value.rule == "seed_unrevealed"


def test_a_wrong_seed_is_refused():
    g = game_mod.evolve(next_deal(started(), seed="a"), DealVoided("all_wala"))
    with pytest.raises(DomainError) as info:
        game_mod.decide(g, RevealSeed("b"))
    assert info.value.rule == "seed_mismatch"
    assert game_mod.decide(g, RevealSeed("a"))[0].seed == "a"


def test_the_seed_cannot_be_revealed_before_the_deal_ends():
    g = next_deal(started(), seed="a")
    with pytest.raises(DomainError) as info:
        game_mod.decide(g, RevealSeed("a"))
    assert info.value.rule == "seed_too_early"


def game_end(g, event):
    return game_mod.game_end(g, event)


def test_reaching_152_wins():
    g = with_scores(started(), 140, 100)
    end = game_end(g, scored(16, 0))
    assert end == GameEnded(0, (156, 100))


def test_both_over_152_the_higher_total_wins():
    g = with_scores(started(), 140, 145)
    assert game_end(g, scored(26, 16)) == GameEnded(0, (166, 161))


def test_both_over_152_and_equal_another_deal_is_played():
    g = with_scores(started(), 140, 140)
    assert game_end(g, scored(16, 16)) is None


def test_gahwa_ends_the_game_at_once():
    g = with_scores(started(), 10, 0)
    assert game_end(g, scored(0, 152, gahwa_winner=1)) == GameEnded(1, (10, 152), "gahwa")


def test_target_switch():
    g = with_scores(started(profile=profile_named("saudi", {"target": 100})), 90, 0)
    assert game_end(g, scored(16, 0)) == GameEnded(0, (106, 0))


def test_below_the_target_the_game_goes_on():
    assert game_end(with_scores(started(), 100, 100), scored(26, 0)) is None


def test_a_belote_dispute_carries_the_held_points_to_the_next_deal_winner():
    g = started(profile=profile_named("belote_classic"))
    g = next_deal(g, "d1")
    g = game_mod.evolve(g, scored(81, 0, held=81))
    assert g.scores == (81, 0) and g.held == 81
    g = next_deal(game_mod.evolve(g, SeedRevealed("d1")), "d2")
    g = replace(g, deal=replace(g.deal, contract=Contract("hokum", 0, 1)))
    g = game_mod.evolve(g, scored(60, 102))           # the takers (team B) make it: they get the 81
    assert g.scores == (81 + 60, 102 + 81) and g.held == 0


def test_a_finished_game_refuses_more_deals():
    g = game_mod.evolve(started(), GameEnded(0, (160, 0)))
    with pytest.raises(DomainError) as info:
        game_mod.decide(g, DealNext(seed="z"))
    assert info.value.rule == "game_not_playing"


def test_start_game_twice_is_refused():
    with pytest.raises(DomainError):
        game_mod.decide(started(), StartGame(first_dealer=0))


def test_annulling_a_scored_deal_takes_its_points_back_and_the_next_dealer_moves_on():
    g = next_deal(started(first_dealer=1), "a")
    g = game_mod.evolve(g, scored(26, 0))
    assert g.scores == (26, 0) and g.dealer == 2
    events = game_mod.decide(g, AnnulDeal(reason="cards exposed while dealing"))
    g = game_mod.evolve(g, events[0])
    assert g.scores == (0, 0) and g.dealer == 2 and g.deal.phase == "annulled"
    assert events[0].game_points == (26, 0)


def test_a_replayed_deal_is_dealt_again_by_the_same_dealer():
    g = next_deal(started(first_dealer=1), "a")
    g = game_mod.evolve(g, game_mod.decide(g, AnnulDeal(reason="misdeal", replay=True))[0])
    g = game_mod.evolve(g, SeedRevealed("a"))
    g = next_deal(g, "b")
    assert g.deal.dealer == 1 and g.deal_no == 2


def test_annulling_needs_a_reason():
    g = next_deal(started(), "a")
    with pytest.raises(DomainError) as info:
        game_mod.decide(g, AnnulDeal(reason=" "))
    assert info.value.rule == "annul_reason"


def test_a_forfeited_game_is_won_by_the_other_team_at_the_scores_reached():
    g = with_scores(next_deal(started(), "a"), 40, 90)
    assert game_mod.decide(g, ForfeitGame(team=1, reason="time")) == [GameEnded(0, (40, 90), "forfeit", note="time")]


def test_a_referee_ends_a_game_for_a_reason_with_or_without_a_winner():
    g = with_scores(next_deal(started(), "a"), 40, 90)
    assert game_mod.decide(g, EndGame(reason="fire alarm", winner=1)) == [
        GameEnded(1, (40, 90), "referee", note="fire alarm")]
    ended = game_mod.evolve(g, GameEnded(None, (40, 90), "referee", note="fire alarm"))
    assert ended.phase == "ended" and ended.winner is None and ended.end_reason == "referee"
    with pytest.raises(DomainError) as info:
        game_mod.decide(g, EndGame(reason="  "))
    assert info.value.rule == "end_reason"
    with pytest.raises(DomainError) as info:
        game_mod.decide(ended, EndGame(reason="again"))
    assert info.value.rule == "game_not_playing"


def test_a_game_abandoned_by_one_team_is_won_by_the_other_and_by_both_by_nobody():
    g = with_scores(next_deal(started(), "a"), 10, 20)
    assert game_mod.decide(g, AbandonGame(teams=(0,), reason="8 turns timed out")) == [
        GameEnded(1, (10, 20), "abandoned", note="8 turns timed out")]
    assert game_mod.decide(g, AbandonGame(teams=(0, 1), reason="nobody plays"))[0].winner is None


def test_a_table_hands_a_seat_to_a_bot_by_a_ruling_like_any_other_command():
    from domain import table
    opened = table.TableOpened(table_id="t", seats=("a", "b", "c", "d"))
    at = table.TableState(opened=opened, game=next_deal(started(), "a"))
    assert table.decide(at, table.HandSeatToBot(seat=2, level="normal", reason="clock")) == [
        table.SeatHandedToBot(seat=2, level="normal", reason="clock")]
    with pytest.raises(DomainError) as info:
        table.decide(at, table.HandSeatToBot(seat=7, level="normal", reason="clock"))
    assert info.value.rule == "bad_seat"
