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


def folded(sim: Simulation, events=None):
    graph = bracket.initial()
    for event in sim.events if events is None else events:
        graph = bracket.evolve(graph, event)
    return graph


def test_a_section_of_a_knockout_is_the_subtree_its_winners_play_on_to():
    sim = championship("single_elimination", 100)       # a bracket of 128: 64 matches in round 1, 7 rounds
    graph = folded(sim)
    rounds = [r.matches for r in sim.state.rounds]
    part = bracket.section(graph, "main", 1, 3, 8, 4)   # round 1's matches 17..24 and where their winners went
    assert (part.sections, len(part.columns)) == (8, 4)
    assert [[s.node.match_id for s in col.slots] for col in part.columns] == [
        [m.match_id for m in rounds[c][16 >> c:(16 >> c) + (8 >> c)]] for c in range(4)]
    assert [col.round for col in part.columns] == [1, 2, 3, 4]
    assert [s.feeders for s in part.columns[1].slots] == [(0, 1), (2, 3), (4, 5), (6, 7)]
    # Each later match's teams are the winners of the two it is fed by.
    for before, after in zip(part.columns, part.columns[1:]):
        for s in after.slots:
            assert {s.node.team_a, s.node.team_b} == {before.slots[k].node.winner for k in s.feeders}
    # Near the final the tree runs out of rounds: the final alone is the last column.
    top = bracket.section(graph, "main", 6, 1, 8, 4)
    assert [len(col.slots) for col in top.columns] == [2, 1]
    assert top.columns[-1].slots[0].node.winner == sim.state.champion
    assert bracket.outline(bracket.by_stage(graph))[0].rounds == tuple((k + 1, len(r)) for k, r in enumerate(rounds))
    assert bracket.place(graph, rounds[2][5].match_id, bracket.by_stage(graph)) == ("main", 3, 5)
    assert bracket.section(graph, "main", 9, 1, 8, 4) is None and bracket.section(graph, "losers", 1, 1, 8, 4) is None


def test_a_live_section_shows_the_slots_not_paired_yet():
    sim = championship("single_elimination", 32)
    second = next(k for k, e in enumerate(sim.events) if type(e).__name__ == "RoundPaired" and e.matches[0].round == 2)
    graph = folded(sim, sim.events[:second])           # round 1 played, round 2 not paired yet
    part = bracket.section(graph, "main", 1, 1, 8, 4)
    assert [col.round for col in part.columns] == [1, None, None, None]
    assert [len(col.slots) for col in part.columns] == [8, 4, 2, 1]
    assert all(s.node is None for col in part.columns[1:] for s in col.slots)
    assert bracket.outline(bracket.by_stage(graph))[0].total_rounds == 5


def test_a_losers_bracket_section_follows_the_winners_edges():
    sim = championship("double_elimination", 16)
    graph = folded(sim)
    stages = [s.stage for s in bracket.outline(bracket.by_stage(graph))]
    assert stages[:2] == ["winners", "losers"] and "grand final" in stages
    first_losers_round = min(r for r, _ in bracket.outline(bracket.by_stage(graph))[1].rounds)
    part = bracket.section(graph, "losers", first_losers_round, 1, 8, 3)
    for before, after in zip(part.columns, part.columns[1:]):
        for s in after.slots:
            fed = {before.slots[k].node.winner for k in s.feeders}
            assert fed and fed <= {s.node.team_a, s.node.team_b}


def test_each_group_is_a_bracket_of_its_own():
    sim = Simulation(Settings("p", "groups_knockout", group_size=8, qualifiers_per_group=2), 32, "proj")
    sim.run()
    graph = folded(sim)
    stages = {s.stage: s for s in bracket.outline(bracket.by_stage(graph))}
    assert {"group 1", "group 4", "final bracket"} <= set(stages)
    assert stages["group 2"].total_rounds == 2 and stages["final bracket"].total_rounds == 3
    part = bracket.section(graph, "group 2", 1, 1, 8, 4)
    group = {t for m in sim.state.rounds[0].matches if m.stage == "group 2" for t in (m.team_a, m.team_b)}
    assert [len(col.slots) for col in part.columns] == [4, 2]
    assert {t for s in part.columns[0].slots for t in (s.node.team_a, s.node.team_b)} == group
