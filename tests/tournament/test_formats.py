"""Each format on small fields, with the pairing rule it promises."""

from __future__ import annotations

import itertools

import pytest

from domain.tournament import Settings, StartRound
from domain.tournament.audit import audit
from domain.tournament.bracket import first_round_slots, seed_positions
from domain.tournament.groups import deal_groups
from domain.tournament.round_robin import circle_round
from domain.tournament.simulation import Simulation
from domain.tournament.swiss import pair
from tests.tournament.helpers import drawn, run


def simulate(format_: str, teams: int, seed: str = "1", **settings) -> Simulation:
    sim = Simulation(Settings("t", format_, **settings), teams, seed)
    sim.run()
    return sim


def test_seed_positions_keep_top_seeds_apart():
    assert seed_positions(8) == [0, 7, 3, 4, 1, 6, 2, 5]


def test_byes_go_to_the_best_seeds_in_round_one():
    slots = first_round_slots(["A", "B", "C", "D", "E"])
    assert slots == ["A", None, "D", "E", "B", None, "C", None]


def test_single_elimination_of_five_has_three_byes_then_none():
    sim = simulate("single_elimination", 5)
    notes = [[m.note for m in r.matches] for r in sim.state.rounds]
    assert notes[0].count("bye") == 3 and all(n == "" for r in notes[1:] for n in r)
    assert len(sim.state.rounds) == 3 and sim.state.champion is not None


def test_groups_snake_deal():
    assert deal_groups(list("ABCDEFG"), 3) == [["A", "F", "G"], ["B", "E"], ["C", "D"]]


def test_groups_qualifiers_enter_the_final_bracket():
    sim = simulate("groups_knockout", 40, group_size=8, qualifiers_per_group=2)
    finals = [r for r in sim.state.rounds if r.inputs.phase == "final"]
    assert len(finals[0].inputs.lists[0]) == 10          # 5 groups x 2 qualifiers
    group_rounds = [r for r in sim.state.rounds if r.inputs.phase == "groups"]
    assert len(group_rounds) == 2                        # 8 -> 4 -> 2 per group
    assert audit(sim.events) == []


def test_double_elimination_eight_follows_the_classic_shape():
    sim = simulate("double_elimination", 8)
    shape = [(sum(m.stage == "winners" for m in r.matches), sum(m.stage == "losers" for m in r.matches))
             for r in sim.state.rounds if r.inputs.phase == "brackets"]
    assert shape == [(4, 0), (2, 2), (1, 2), (0, 1), (0, 1)]
    assert sim.state.rounds[-1].matches[0].stage in ("grand final", "grand final reset")


def test_grand_final_reset_only_when_the_losers_champion_wins():
    for seed in map(str, range(12)):
        rounds = simulate("double_elimination", 4, seed).state.rounds
        finals = [r for r in rounds if r.matches[0].stage.startswith("grand final")]
        first = finals[0]
        lb_won = first.outcomes[0].winner == first.matches[0].team_b
        assert len(finals) == (2 if lb_won else 1)


def test_no_reset_when_switched_off():
    for seed in map(str, range(8)):
        rounds = simulate("double_elimination", 4, seed, grand_final_reset=False).state.rounds
        assert not any(m.stage == "grand final reset" for r in rounds for m in r.matches)


def test_double_elimination_avoids_losers_bracket_rematches():
    """A losers' round of one match has no alternative; larger rounds never repeat a pairing."""
    for seed in map(str, range(10)):
        rounds = simulate("double_elimination", 16, seed).state.rounds
        seen = set()
        for r in rounds:
            lb_matches = sum(m.stage == "losers" for m in r.matches)
            for m in r.matches:
                if m.team_b is not None and m.stage == "losers" and lb_matches > 1:
                    assert frozenset((m.team_a, m.team_b)) not in seen
                if m.team_b is not None:
                    seen.add(frozenset((m.team_a, m.team_b)))


def test_swiss_pairs_equal_points_and_avoids_rematches():
    ranked = ["A", "B", "C", "D"]
    points = {"A": 1, "B": 1, "C": 0, "D": 0}
    assert pair(ranked, points, set(), set()) == ([("A", "B"), ("C", "D")], None)
    met = {frozenset("AB"), frozenset("CD"), frozenset("AD")}
    assert pair(ranked, points, met, set()) == ([("A", "C"), ("B", "D")], None)


def test_swiss_bye_goes_to_the_lowest_team_without_one():
    assert pair(["A", "B", "C"], {"A": 1, "B": 1, "C": 0}, set(), {"C"})[1] == "B"


def test_swiss_drops_are_not_paired():
    from domain.tournament import RecordMatchResult, WithdrawTeam
    from tests.tournament.test_commands import WIN_A
    state = run(drawn(6, "swiss"), StartRound(1))
    state = run(state, *(RecordMatchResult(m.match_id, WIN_A) for m in state.rounds[0].matches),
                WithdrawTeam("T1"), StartRound(2))
    teams = {t for m in state.rounds[1].matches for t in (m.team_a, m.team_b)}
    assert "T1" not in teams and None in teams            # five teams left: one bye


def test_round_robin_meets_everyone_once():
    for n in (2, 3, 4, 5, 8):
        sim = simulate("round_robin", n)
        pairs = [frozenset((m.team_a, m.team_b)) for r in sim.state.rounds for m in r.matches
                 if m.team_b is not None]
        assert sorted(map(sorted, pairs)) == sorted(map(sorted, map(frozenset, itertools.combinations(
            sim.state.draw.order, 2))))


def test_circle_method_first_round():
    assert circle_round(["A", "B", "C", "D"], 0) == [("A", "D"), ("B", "C")]


def test_seeding_by_rating_puts_the_best_rated_first():
    sim = Simulation(Settings("t", "single_elimination", seeding="rating"), 4, "1",
                     ratings={"T001": 1.0, "T002": 4.0, "T003": 3.0, "T004": 2.0})
    sim.run()
    assert sim.state.draw.order == ("T002", "T003", "T004", "T001")
    assert [(m.team_a, m.team_b) for m in sim.state.rounds[0].matches] == [("T002", "T001"), ("T003", "T004")]


@pytest.mark.parametrize("format_", ["single_elimination", "groups_knockout", "double_elimination", "swiss",
                                     "round_robin"])
def test_every_format_is_auditable(format_):
    sim = simulate(format_, 11)
    assert audit(sim.events) == []
    assert sim.state.champion == sim.state.ranking[0].team_id
