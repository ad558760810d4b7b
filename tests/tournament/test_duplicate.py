"""The duplicate format: Swiss rounds whose matches play the round's boards at two tables, seats swapped,
scored by IMPs head to head; a 64-team event runs to its winner, every pairing audited."""

import pytest

from domain.tournament import ChampionshipRuleError, Settings
from domain.tournament import commands as c
from domain.tournament import duplicate
from domain.tournament.audit import audit
from domain.tournament.simulation import Simulation


def test_a_board_adds_both_tables_from_each_team_s_side():
    # Table 1: A (seats 0+2) takes 16 GP. Table 2: B holds seats 0+2 and takes 26: A 16, B 26.
    assert duplicate.board_score((16, 0), (26, 0)) == (16, 26)
    assert duplicate.board_score((0, 26), (0, 16)) == (16, 26)


def test_the_match_goes_to_more_imps_then_more_gp_then_team_a():
    # Boards (A, B): +26 -> A 6 IMPs; -16 -> B 4; -6 -> B 2. IMPs 6-6, GP 36-32: A.
    r = duplicate.duplicate_result([(26, 0), (0, 16), (10, 16)])
    assert (r.winner, r.team_a_points, r.team_b_points, r.team_a_games, r.team_b_games) == ("a", 36, 32, 1, 0)
    assert duplicate.match_imps(r.final_scores) == (6, 6)
    r = duplicate.duplicate_result([(0, 9), (4, 0)])        # B 3 IMPs, A 1: B, though fewer GP... 9 vs 4
    assert r.winner == "b" and duplicate.match_imps(r.final_scores) == (1, 3)
    assert duplicate.duplicate_result([(8, 8)]).winner == "a"


def test_round_boards_are_the_same_for_every_match_and_derive_from_the_draw_seed():
    sim = Simulation(Settings(name="dup", format="duplicate", duplicate_boards=3), 8, "s")
    sim.register()
    sim.draw()
    one = duplicate.round_boards(sim.state, 1)
    assert one == duplicate.round_boards(sim.state, 1) and len(one) == 3
    assert {b.seed for b in one}.isdisjoint({b.seed for b in duplicate.round_boards(sim.state, 2)})
    assert duplicate.round_seed("s", sim.state.championship_id, 1) != duplicate.round_seed("t", sim.state.championship_id, 1)


def test_a_result_that_does_not_follow_from_its_boards_is_refused():
    sim = Simulation(Settings(name="dup", format="duplicate", duplicate_boards=2), 4, "s")
    sim.register()
    sim.draw()
    sim.apply(c.StartRound(1))
    match = sim.state.rounds[-1].matches[0]
    good = duplicate.duplicate_result([(26, 0), (0, 16)])
    bad = duplicate.duplicate_result([(0, 26), (16, 0)])
    tampered = type(good)(**{**{f: getattr(good, f) for f in good.__struct_fields__}, "winner": "b",
                             "team_a_games": 0, "team_b_games": 1})
    with pytest.raises(ChampionshipRuleError) as e:
        sim.apply(c.RecordMatchResult(match.match_id, tampered))
    assert e.value.rule == "duplicate_result"
    with pytest.raises(ChampionshipRuleError) as e:
        sim.apply(c.RecordMatchResult(match.match_id, duplicate.duplicate_result([(26, 0)])))
    assert e.value.rule == "duplicate_boards"
    sim.apply(c.RecordMatchResult(match.match_id, bad))


def test_a_64_team_duplicate_event_runs_to_its_winner_with_every_pairing_audited():
    sim = Simulation(Settings(name="dup", format="duplicate"), 64, "7")
    state = sim.run()
    assert state.status == "finished" and state.champion is not None
    assert len(state.rounds) == 6 and len(state.ranking) == 64
    assert state.ranking[0].team_id == state.champion
    assert audit(sim.events) == []
    for round_ in state.rounds:
        assert all(m.stage == "duplicate" for m in round_.matches)
        for outcome in round_.outcomes:
            assert duplicate.result_problem(outcome.result, 4) is None


def test_played_boards_seat_each_team_on_both_sides_of_the_same_cards():
    seen = []

    def board_scores(board, first, second):
        seen.append((board.set_id, board.seed, first, second))
        return (16, 0) if first < second else (0, 26)

    sim = Simulation(Settings(name="dup", format="duplicate", duplicate_boards=2), 8, "p", board_scores=board_scores)
    state = sim.run()
    assert state.champion is not None
    for round_ in state.rounds:
        seeds = {s for set_id, s, *_ in seen if set_id.endswith(f"/round-{round_.number}")}
        assert len(seeds) == 2                                  # every match of the round: the same two boards
        for m in round_.matches:
            for seed in seeds:
                assert sum(1 for x in seen if x[1] == seed and {x[2], x[3]} == {m.team_a, m.team_b}) == 2
                assert any(x[1] == seed and (x[2], x[3]) == (m.team_a, m.team_b) for x in seen)
                assert any(x[1] == seed and (x[2], x[3]) == (m.team_b, m.team_a) for x in seen)
