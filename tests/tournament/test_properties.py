"""Property tests: random fields, seeds and disturbances (no-shows, double no-shows, withdrawals)."""

from __future__ import annotations

from collections import Counter

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.tournament import Settings, fold
from domain.tournament.audit import audit
from domain.tournament.simulation import Disturbances, Simulation
from projections import bracket, standings

ELIMINATION = ("single_elimination", "groups_knockout", "double_elimination")
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

disturbances = st.builds(
    Disturbances,
    forfeit=st.sampled_from([0.0, 0.1, 0.3]),
    double_forfeit=st.sampled_from([0.0, 0.05, 0.2]),
    withdrawal=st.sampled_from([0.0, 0.05, 0.2]),
)


def play(format_: str, teams: int, seed: str, chaos: Disturbances = Disturbances(), **options) -> Simulation:
    sim = Simulation(Settings("p", format_, group_size=6, **options), teams, seed, disturbances=chaos)
    sim.run()
    return sim


def losses(sim: Simulation) -> Counter:
    count: Counter = Counter()
    for r in sim.state.rounds:
        for outcome in r.outcomes:
            count.update(outcome.losers)
    return count


def check_rounds(sim: Simulation) -> None:
    """No team twice in a round; every match decided; byes only where the format allows them."""
    fmt = sim.state.settings.format
    for r in sim.state.rounds:
        teams = [t for m in r.matches for t in (m.team_a, m.team_b) if t is not None]
        assert len(teams) == len(set(teams)), f"a team plays twice in round {r.number}"
        assert all(o is not None for o in r.outcomes) and r.undecided == 0
        for m in r.matches:
            if m.note != "bye":
                continue
            if fmt == "single_elimination":
                assert r.number == 1
            elif fmt == "groups_knockout":
                first_final = next((x.number for x in sim.state.rounds if x.inputs.phase == "final"), 1)
                assert r.number in (1, first_final)
            elif fmt == "double_elimination":
                assert m.stage == "losers" or r.number == 1
        if fmt in ("swiss", "round_robin"):
            assert sum(m.note == "bye" for m in r.matches) <= 1


@FAST
@given(format_=st.sampled_from(ELIMINATION), teams=st.integers(1, 40), seed=st.text(min_size=1, max_size=6),
       chaos=disturbances, reset=st.booleans())
def test_elimination_formats_eliminate_every_team_but_the_champion(format_, teams, seed, chaos, reset):
    sim = play(format_, teams, seed, chaos, grand_final_reset=reset)
    check_rounds(sim)
    lost = losses(sim)
    champion = sim.state.champion
    assert champion is not None or any(o.kind == "double_forfeit" for r in sim.state.rounds for o in r.outcomes)
    lives = 2 if format_ == "double_elimination" else 1
    finals = [r for r in sim.state.rounds if r.matches[0].stage.startswith("grand final")]
    runner_up = None
    if finals:
        final = finals[-1].matches[0]
        runner_up = final.team_b if champion == final.team_a else final.team_a
    for team in sim.state.draw.order:
        if team == champion:
            assert lost[team] < lives
        elif team == runner_up:
            assert 1 <= lost[team] <= 2
        else:
            assert lost[team] == lives, f"{team} lost {lost[team]} times"
    if champion is not None:
        assert sim.state.ranking[0].team_id == champion
    assert sorted(r.team_id for r in sim.state.ranking) == sorted(sim.state.draw.order)


@FAST
@given(format_=st.sampled_from(ELIMINATION + ("swiss", "round_robin")), teams=st.integers(1, 24),
       seed=st.text(min_size=1, max_size=6), chaos=disturbances)
def test_results_are_identical_when_rederived_from_the_events(format_, teams, seed, chaos):
    sim = play(format_, teams, seed, chaos)
    check_rounds(sim)
    assert audit(sim.events) == []
    assert fold(sim.events) == sim.state
    table = standings.initial()
    graph = bracket.initial()
    for event in sim.events:
        table = standings.evolve(table, event)
        graph = bracket.evolve(graph, event)
    if format_ in ("swiss", "round_robin"):
        assert [row.team_id for row in standings.table(table)] == [r.team_id for r in sim.state.ranking]
    decided = {n.match_id: n.winner for n in bracket.nodes(graph)}
    assert decided == {m.match_id: o.winner for r in sim.state.rounds for m, o in zip(r.matches, r.outcomes)}


@FAST
@given(teams=st.integers(2, 16), rounds=st.integers(1, 15), seed=st.text(min_size=1, max_size=6))
def test_swiss_never_repeats_a_pairing_while_an_alternative_exists(teams, rounds, seed):
    sim = play("swiss", teams, seed, swiss_rounds=rounds)
    check_rounds(sim)
    met: set[frozenset[str]] = set()
    byes: Counter = Counter()
    for r in sim.state.rounds:
        pairs = [frozenset((m.team_a, m.team_b)) for m in r.matches if m.team_b is not None]
        byes.update(m.team_a for m in r.matches if m.team_b is None)
        if any(p in met for p in pairs):
            field = [t for p in pairs for t in p]
            fresh = nx.Graph([(a, b) for i, a in enumerate(field) for b in field[i + 1:]
                              if frozenset((a, b)) not in met])
            assert len(nx.max_weight_matching(fresh, maxcardinality=True)) < len(pairs), \
                f"round {r.number} repeats a pairing although a fresh pairing existed"
        met.update(pairs)
    if rounds <= teams:
        assert max(byes.values(), default=0) <= 1, "a team had two byes"


@pytest.mark.parametrize("teams", [1, 2, 3, 5, 10_241])
@pytest.mark.parametrize("format_", ELIMINATION + ("swiss",))
def test_odd_field_sizes(format_, teams):
    if format_ == "swiss" and teams > 1000:
        teams = 1001
    sim = play(format_, teams, "odd", Disturbances(forfeit=0.02, double_forfeit=0.01, withdrawal=0.01))
    check_rounds(sim)
    if teams == 1:
        assert sim.state.champion == "T001" and sim.state.rounds == ()
    assert len(sim.state.ranking) == teams


@pytest.mark.parametrize("teams", [1, 2, 3, 5, 9])
def test_odd_round_robin(teams):
    sim = play("round_robin", teams, "odd")
    check_rounds(sim)
    per_team = Counter(t for r in sim.state.rounds for m in r.matches if m.team_b for t in (m.team_a, m.team_b))
    assert all(per_team[t] == teams - 1 for t in sim.state.draw.order)
