"""A round's results landing together on one championship stream: in one process they take turns, so none is
given up on (a result given up on left its round waiting for the reconciler's next pass)."""

from __future__ import annotations

import asyncio

import msgspec

from domain.tournament import commands as c
from domain.tournament.events import Settings
from domain.tournament.simulation import Simulation
from services.championships import RunSettings, stream_of
from services.championships import service as championship_service
from services.eventstore import read_stream
from services.platform import Platform


async def round_one_started(svc, teams: int) -> tuple[str, Simulation, list]:
    """A championship stored up to its round 1 started; the simulation's results of that round, undecided."""
    sim = Simulation(Settings(name="Qassim Cup", format="single_elimination"), teams, seed="7")
    commands = []
    sim.apply = lambda command, apply=sim.apply: (apply(command), commands.append(command))[0]
    sim.register()
    sim.draw()
    sim.apply(c.StartRound(1))
    cid = "turns-cup"
    commands[0] = c.CreateChampionship(cid, commands[0].settings)
    await svc.execute(cid, "setup", lambda _: commands, actor="organiser", new=True,
                      metadata={"run": msgspec.to_builtins(RunSettings())})
    results = [c.RecordMatchResult(m.match_id, sim.result(m)) for m in sim.state.rounds[0].matches]
    return cid, sim, results


async def test_a_rounds_results_at_once_are_all_recorded_first_time(pool, monkeypatch):
    # One attempt each: a result that met a conflict at the store would be refused (championship_busy).
    monkeypatch.setattr(championship_service, "MAX_ATTEMPTS", 1)
    svc = (await Platform.on(pool)).championships
    cid, _, results = await round_one_started(svc, 32)
    assert len(results) == 16

    outcomes = await asyncio.gather(*(
        svc.execute(cid, f"match-result/{r.match_id}", lambda _, r=r: [r], actor="system") for r in results))

    assert all(o.events == ["match_result_recorded"] for o, _ in outcomes)
    rows = await read_stream(pool, stream_of(cid))
    recorded = [r for r in rows if r.event_type == "match_result_recorded"]
    assert sorted(r.data["match_id"] for r in recorded) == sorted(r.match_id for r in results)
    assert (await svc.load(cid)).state.rounds[0].undecided == 0
    assert svc.deciding == 0                  # no lock is kept for a championship nobody is deciding
