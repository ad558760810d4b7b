"""A team registered in a championship: its players counted for the championship's format, the people
named checked, the bot players given accounts of their own; the organiser's registration is the
championship's command at once, a player's is a proposal to the other players and substitutes named
(``invitations``), registered once each has accepted. Who may register which team is the access policy's
(``policy.register_team``)."""

from __future__ import annotations

import uuid

import msgspec

from domain.tournament import RegisterTeam, decide
from services.access import policy
from services.bots import BOT_SEAT, team_bots
from services.championships import duplicate
from services.errors import Unprocessable
from services.people import unknown


class Registered(msgspec.Struct):
    """What came of a registration: ``outcome`` (the command's) when the organiser registered the team,
    else the proposal's ``status`` (invited, declined, registered), who it waits for and whether it was sent
    before (``replayed``); ``championship``: the championship after it."""

    team_id: str
    status: str
    waiting: list[str]
    championship: object
    outcome: object | None = None
    replayed: bool = False


async def check_users(db, user_ids: list[str], field: str) -> None:
    """Each of ``user_ids`` must name a user (``Unprocessable`` naming ``field``)."""
    missing = await unknown(db, user_ids)
    if missing:
        raise Unprocessable("unknown_user", f"there is no user {missing[0]!r}", field=field)


async def register_team(pool, championships, access, viewer, championship_id: str, *, by: str, command_id: str,
                        digest: str, players: list[str], substitutes: list[str],
                        team_id: str | None = None) -> Registered:
    """Register (the organiser) or propose (a player) the team of ``players`` ("bot": a bot plays that place)
    and ``substitutes``, for ``by``; ``team_id``: None for one made from the command id."""
    champ = await championships.load(championship_id)
    size = duplicate.team_size(champ.state.settings.format)
    if len(players) != size:
        raise Unprocessable("team_players", f"a team of a {champ.state.settings.format} championship is {size} "
                            f"players{' (two pairs: one at each table of a match)' if size == 4 else ''}, "
                            f"not {len(players)}", field="players")
    bot_places = [i for i, p in enumerate(players) if p == BOT_SEAT]
    _, rel = await access.championship(viewer, championship_id, policy.register_team,
                                       in_team=by in players, bots=bool(bot_places))
    await check_users(pool, [p for p in players if p != BOT_SEAT] + list(substitutes), "players")
    team_id = team_id or uuid.uuid5(uuid.NAMESPACE_URL, f"{championship_id}/{command_id}").hex[:12]
    players = list(players)
    if bot_places:
        decide(champ.state, RegisterTeam(team_id, tuple(f"bot #{i}" if p == BOT_SEAT else p
                                                        for i, p in enumerate(players)), tuple(substitutes)))
        for i, uid in (await team_bots(pool, championship_id, team_id, bot_places)).items():
            players[i] = uid
    command = RegisterTeam(team_id, tuple(players), tuple(substitutes))
    if rel.organiser:
        outcome, champ = await championships.execute(championship_id, command_id, lambda _: [command], actor=by,
                                                     digest=digest)
        return Registered(team_id, "registered", [], champ, outcome)
    invitation, replayed = await championships.invitations.propose(championship_id, command, by)
    status = "declined" if invitation.declined else "invited" if invitation.waiting else "registered"
    return Registered(team_id, status, list(invitation.waiting), champ, None, replayed)
