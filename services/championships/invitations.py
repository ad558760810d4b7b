"""Team invitations at the platform: their stream (``team-invites-{championship}``), the proposal of a team
by one of its players, each invitee's answer, and the registration the last acceptance makes (the rules:
``domain/tournament/invitations.py``)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from domain.tournament import decide
from domain.tournament import invitations as rules
from domain.tournament.commands import RegisterTeam
from domain.tournament.invitations import INVITATION_EVENTS, Invitations, TeamInvitation
from services import proposals
from services.commands import CommandOutcome
from services.errors import Conflict, NotFound
from services.eventstore import Codec, ConcurrencyError, DuplicateEventError, append, read_stream

if TYPE_CHECKING:
    from services.championships.service import Championship, ChampionshipService

INVITES_CODEC = Codec(INVITATION_EVENTS)


# The pending invitations' index (migrations/0022_lobby.sql): one row per invitee still to answer.
_PENDING = ("INSERT INTO team_invites_pending (championship_id, team_id, user_id, proposed_by) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING")
_ANSWERED = ("DELETE FROM team_invites_pending WHERE championship_id = $1 AND team_id = $2 "
             "AND ($3::text IS NULL OR user_id = $3)")
_PENDING_OF_PROPOSER = ("SELECT count(DISTINCT (championship_id, team_id)) FROM team_invites_pending "
                        "WHERE proposed_by = $1")
_PENDING_OF_INVITEE = ("SELECT count(*) FILTER (WHERE proposed_by = $1), "
                       "count(*) FROM team_invites_pending WHERE user_id = $2")


def invites_stream(championship_id: str) -> str:
    return f"team-invites-{championship_id}"


def fold_invites(rows) -> tuple[int, Invitations]:
    invites: Invitations = {}
    for r in rows:
        invites = rules.evolve(invites, INVITES_CODEC.decode(r))
    return (rows[-1].version if rows else 0), invites


class TeamInvitationService:
    def __init__(self, championships: ChampionshipService):
        self.championships = championships
        self.pool = championships.pool

    async def of(self, championship_id: str) -> tuple[int, Invitations]:
        """The championship's invitations and their stream's version."""
        return fold_invites(await read_stream(self.pool, invites_stream(championship_id)))

    def _event_id(self, championship_id: str, name: str) -> uuid.UUID:
        return uuid.uuid5(self.championships.namespace, f"{championship_id}/team/{name}")

    async def propose(self, championship_id: str, command: RegisterTeam, by: str) -> tuple[TeamInvitation, bool]:
        """Invite the team's other players and substitutes; refused at once if the championship would refuse the
        team. Returns the invitation and whether it was already there (the same proposal sent again)."""
        version, invites = await self.of(championship_id)
        if command.team_id not in invites:
            decide((await self.championships.load(championship_id)).state, command)   # a dry run
        proposal = rules.propose(invites, command, by)
        if proposal is None:
            return invites[command.team_id], True
        try:
            # Within the caps on proposals waiting for answers (services/proposals.py), counted on the pending
            # invitations' index and written with the proposal, under the people's proposal locks.
            async with self.pool.acquire() as conn, conn.transaction():
                await proposals.within_caps(conn, "teams", "team proposals", by, proposal.waiting,
                                            _PENDING_OF_PROPOSER, _PENDING_OF_INVITEE)
                await append(conn, invites_stream(championship_id), version, [INVITES_CODEC.encode(
                    proposal, event_id=self._event_id(championship_id, command.team_id), metadata={"actor": by})])
                await conn.executemany(_PENDING, [(championship_id, command.team_id, u, by) for u in proposal.waiting])
        except (ConcurrencyError, DuplicateEventError):
            raise Conflict("championship_busy", "another team was proposed at the same moment; try again") \
                from None
        return rules.evolve(invites, proposal)[command.team_id], False

    async def answer(self, championship_id: str, team_id: str, user: str, accept: bool
                     ) -> tuple[TeamInvitation, CommandOutcome | None, Championship]:
        """An invited player answers; the last acceptance registers the team (as its proposer's command)."""
        for _ in range(self.championships.max_attempts):
            version, invites = await self.of(championship_id)
            invitation = invites.get(team_id)
            if not rules.invited(invitation, user):
                raise NotFound("not_invited", f"you are not invited to team {team_id}")
            answer = rules.answer(invitation, user, accept)
            if answer is not None:
                try:
                    # His answer takes the invitation out of the pending index (a refusal, the whole team's).
                    async with self.pool.acquire() as conn, conn.transaction():
                        await append(conn, invites_stream(championship_id), version, [INVITES_CODEC.encode(
                            answer, event_id=self._event_id(championship_id, f"{team_id}/{user}"),
                            metadata={"actor": user})])
                        await conn.execute(_ANSWERED, championship_id, team_id, None if not accept else user)
                except (ConcurrencyError, DuplicateEventError):
                    continue
                invitation = rules.evolve(invites, answer)[team_id]
            registration = rules.registration(invitation)
            if registration is None:
                return invitation, None, await self.championships.load(championship_id)
            outcome, champ = await self.championships.execute(championship_id, f"register/{team_id}",
                                                              lambda _: [registration], actor=invitation.proposal.by)
            return invitation, outcome, champ
        raise Conflict("championship_busy", f"championship {championship_id} kept changing; try again")
