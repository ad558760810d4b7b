"""Match results from games, the projections, and the CLI."""

from __future__ import annotations

import json

import pytest

from domain.tournament import MatchGame, Settings, ChampionshipRuleError, match_result
from domain.tournament.persistent import PMap, PVec
from domain.tournament.simulation import Simulation
from projections import bracket, standings


def test_best_of_three_result_from_games():
    games = [MatchGame(152, 90, "a"), MatchGame(101, 160, "b"), MatchGame(155, 40, "a")]
    r = match_result(games, 3)
    assert (r.team_a_games, r.team_b_games, r.team_a_points, r.team_b_points, r.winner) == (2, 1, 408, 290, "a")
    assert r.final_scores == ((152, 90), (101, 160), (155, 40))


def test_no_game_after_the_match_is_decided():
    with pytest.raises(ChampionshipRuleError, match="game 2 was played after the match was decided") as error:
        match_result([MatchGame(152, 0, "a"), MatchGame(152, 0, "a")], 1)
    assert error.value.rule == "match_length"


def test_an_undecided_match_has_no_result():
    with pytest.raises(ChampionshipRuleError, match="the match is not decided: 1-0 in games") as error:
        match_result([MatchGame(152, 0, "a")], 3)
    assert error.value.rule == "tournament_rule"


def test_persistent_collections_keep_old_versions():
    m = PMap({"a": 1})
    m2 = m.set("b", 2)
    assert ("b" in m, m2["b"], len(m2)) == (False, 2, 2)
    v = PVec(range(100))
    v2 = v.set(70, "x").append("y")
    assert (v[70], v2[70], v2[-1], len(v2)) == (70, "x", "y", 101)


def championship(format_: str = "swiss", teams: int = 8) -> Simulation:
    sim = Simulation(Settings("p", format_), teams, "proj")
    sim.run()
    return sim


def test_standings_are_ordered_by_points_then_buchholz():
    sim = championship()
    state = standings.initial()
    for event in sim.events:
        state = standings.evolve(state, event)
    rows = standings.table(state)
    keys = [(-r.points, -r.buchholz) for r in rows]
    assert keys == sorted(keys)
    assert sum(r.wins for r in rows) == sum(1 for r in sim.state.rounds for m in r.matches if m.team_b)


def test_bracket_edges_follow_each_team_path():
    sim = championship("double_elimination", 8)
    graph = bracket.initial()
    for event in sim.events:
        graph = bracket.evolve(graph, event)
    champion = sim.state.champion
    path = bracket.path(graph, champion)
    assert path[-1].winner == champion
    for before, after in zip(path, path[1:]):
        edge = next(e for e in bracket.feeders(graph, after.match_id) if e.team == champion)
        assert edge.source == before.match_id and edge.kind == ("winner" if before.winner == champion else "loser")
    assert any(e.kind == "loser" for e in graph.edges)


def test_cli_simulate_json(capsys):
    from services.cli import main
    assert main(["tournament", "simulate", "--teams", "5", "--format", "single", "--seed", "7", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["champion"] == doc["ranking"][0]["team"]
    assert len([m for m in doc["matches"] if m["bye"]]) == 3
    assert {m["round"] for m in doc["matches"]} == {1, 2, 3}


def test_cli_simulate_tables(capsys):
    from services.cli import main
    assert main(["tournament", "simulate", "--teams", "6", "--format", "swiss"]) == 0
    assert "champion: T" in capsys.readouterr().out
