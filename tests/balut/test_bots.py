"""Balut bots: legal, deterministic, choosing from the view only; the strong one's tables checked against
values worked out by hand, and it outscores the simple one."""

import pytest

from domain.balut.bots import BOTS, SimpleBot, StrongBot, bot, open_set_tables, row_par
from domain.balut.events import Roll, Score, StartTurn
from domain.balut.game import step
from domain.balut.profiles import IBF, STC
from domain.balut.simulate import play_game
from domain.balut.views import view
from domain.events import RevealSeed

from tests.balut.given import faces, given_game, turn, when


@pytest.mark.parametrize("profile, games", [(STC, 6), (IBF, 1)])
def test_every_choice_is_legal_and_the_same_for_the_same_view(profile, games):
    for g in range(games):
        state, _ = step(given_game(players=2, profile=profile), StartTurn(seed=f"legal-{g}-0"))
        n = 0
        while state.phase == "playing":
            if state.stage != "rolling":
                state, _ = step(state, RevealSeed(f"legal-{g}-{n}"))
                n += 1
                state, _ = step(state, StartTurn(seed=f"legal-{g}-{n}"))
                continue
            v = view(state, state.turn)
            for level in BOTS:
                choice = bot(level).choose(v)
                assert choice in v.legal_actions, (level, choice)
                assert bot(level).choose(v) == choice
            state, _ = step(state, bot("strong" if state.turn == 0 else "simple").choose(v))


def test_whole_games_are_the_same_for_the_same_seeds():
    assert play_game(["strong", "simple"], "same") == play_game(["strong", "simple"], "same")
    assert play_game(["strong", "simple"], "same")[1] != play_game(["strong", "simple"], "other")[1]


def test_the_simple_bot_keeps_its_most_frequent_face_the_higher_among_equals():
    state = when(given_game(), StartTurn(faces=faces("25253/11111/11111")), Roll(0))
    assert SimpleBot().choose(view(state, 0)) == Roll(0, (1, 3))        # the two fives, not the two twos


def test_the_simple_bot_writes_the_row_that_scores_most_now():
    state = when(given_game(), StartTurn(faces=faces("66612")), Roll(0), Roll(0, (0, 1, 2)), Roll(0, (0, 1, 2)))
    # 6 6 6 1 2: choice 21 beats sixes 18 (and house 0)
    assert SimpleBot().choose(view(state, 0)) == Score(0, "choice")


def test_row_pars_match_values_worked_by_hand():
    par = dict(zip(("fours", "fives", "sixes", "straight", "house", "choice", "balut"), row_par(STC)))
    # Fours alone: each die ends a four with chance 1 - (5/6)^3, five dice, 4 pips each.
    assert par["fours"] == pytest.approx(4 * 5 * (1 - (5 / 6) ** 3))
    # Choice alone, one die: keep 4+ after throw 2 (E = 4.25), keep 5+ after throw 1 (E = 11/6 + 4/6 * 4.25).
    assert par["choice"] == pytest.approx(5 * (11 / 6 + 4 / 6 * 4.25))
    # Balut alone: five of a kind within three throws has chance 2783176 / 6^10 (the Yahtzee figure).
    assert par["balut"] == pytest.approx(30 * 2783176 / 6 ** 10)


def test_the_strong_bot_writes_a_first_throw_balut_in_the_balut_row():
    state = when(given_game(), StartTurn(faces=faces("66666")), Roll(0))
    assert StrongBot().choose(view(state, 0)) == Score(0, "balut")


def test_the_strong_bot_takes_a_low_straight_rather_than_chase_the_high_one():
    state = given_game()
    for dice, row in [("44444", "fours"), ("55555", "fives"), ("66666", "sixes"), ("66655", "house"),
                      ("66666", "choice"), ("33333", "balut")]:
        state = turn(state, dice, category=row)
    state = when(state, StartTurn(faces=faces("12345/66666/66666")), Roll(0))
    # Chasing: throw the 1 twice; a 6 gives 20, a 1 gives 15 back, else throw again:
    # 20/6 + 15/6 + 4/6 * (20/6 + 15/6) = 9.72 < 15 for writing it now.
    assert StrongBot().choose(view(state, 0)) == Score(0, "straight")


def test_the_strong_solitaire_value_is_the_best_single_row_plan_or_better():
    value, _ = open_set_tables(STC)
    assert value[0] == 0 and value[127] >= sum(row_par(STC)) - 1e-9


def test_the_strong_bot_outscores_the_simple_bot():
    strong = simple = 0
    for g in range(40):
        state, _ = play_game(["strong", "simple"], f"duel-{g}", first_player=g % 2)
        strong += state.result.points[0]
        simple += state.result.points[1]
    assert strong > simple
