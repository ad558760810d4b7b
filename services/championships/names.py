"""What people call a championship's teams: pages, exports, the lobby and the desk read names, not the ids
the draw keeps."""

from __future__ import annotations

from domain.tournament.state import ChampionshipState
from services.accounts import user_names


async def team_names(db, state: ChampionshipState, team_ids) -> dict[str, str]:
    """Each of these teams (ids not in the championship are left out) by the name it was given, else by its
    players' names."""
    teams = [state.teams[t] for t in set(team_ids) if t in state.teams]
    people = await user_names(db, [p for team in teams for p in team.players])
    return {team.team_id: (team.info.name if team.info and team.info.name else None)
            or " & ".join(people.get(p, p) for p in team.players) for team in teams}
