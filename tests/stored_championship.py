"""A finished championship stored as if it had been played: a simulation's decided commands appended under an
organiser (so that it is listed), for the tests of the pages and the endpoints that read big brackets."""

from __future__ import annotations

import msgspec

from domain.tournament import commands as c
from domain.tournament.events import Settings
from domain.tournament.simulation import Simulation
from services.championships import RunSettings
from services.platform import Platform
from services.roles import grant


async def knock_out(pool, teams: int, format_: str = "single_elimination", **settings) -> tuple[str, Simulation]:
    """A finished championship of ``teams`` teams (simulated results), stored under user "organiser"."""
    svc = (await Platform.on(pool)).championships
    organiser = "organiser"
    await pool.execute("INSERT INTO users (user_id, name) VALUES ($1, 'organiser') ON CONFLICT DO NOTHING", organiser)
    sim = Simulation(Settings(name=f"Riyadh Cup {teams}", format=format_, **settings), teams, seed="13")
    commands = []
    sim.apply = lambda command, apply=sim.apply: (apply(command), commands.append(command))[0]   # decided ones
    sim.run()
    cid = f"cup-{teams}-{format_}"
    commands[0] = c.CreateChampionship(cid, commands[0].settings)
    await svc.execute(cid, "setup", lambda _: commands, actor=organiser, new=True,
                      metadata={"run": msgspec.to_builtins(RunSettings())})
    await grant(pool, "championship", cid, organiser, "organiser")
    await pool.executemany("INSERT INTO users (user_id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                           [(p, player_name(p)) for t in sim.state.team_order for p in sim.state.teams[t].players])
    return cid, sim


def player_name(user_id: str) -> str:
    """The name a simulated team's player goes by: "Player 17a" for "T0017-1" (17b for its partner)."""
    team, seat = user_id.rsplit("-", 1)
    return f"Player {int(team.lstrip('T'))}{'ab'[int(seat) - 1]}"


def team_name(sim: Simulation, team: str) -> str:
    return " & ".join(player_name(p) for p in sim.state.teams[team].players)


def path_in(sim: Simulation, team: str) -> list[str]:
    return [m.match_id for r in sim.state.rounds for m in r.matches if team in (m.team_a, m.team_b)]
