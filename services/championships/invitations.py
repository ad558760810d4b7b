"""Team invitations at the platform: their stream (``team-invites-{championship}``), the proposal of a team
by one of its players, each invitee's answer, and the registration the last acceptance makes (the rules:
``domain/tournament/invitations.py``)."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import asyncpg

from domain.tournament import decide
from domain.tournament import invitations as rules
from domain.tournament.commands import RegisterTeam
from domain.tournament.invitations import (
    INVITATION_EVENTS, AnswerTeamInvitation, Invitations, ProposeTeam, TeamInvitation,
)
from services import proposals
from services.commands import CommandLoop, CommandOutcome, Decision
from services.errors import NotFound
from services.eventstore import Codec, read_stream

if TYPE_CHECKING:
    from services.championships.service import Championship

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
    """The team invitations' stream of each championship: its commands run in the championships' ``commands``
    loop; ``load`` gives a championship, and ``execute`` runs a championship command (the registration the
    last acceptance makes: ``ChampionshipService.execute``)."""

    def __init__(self, pool: asyncpg.Pool, commands: CommandLoop, namespace: uuid.UUID,
                 load: Callable[[str], Awaitable[Championship]],
                 execute: Callable[..., Awaitable[tuple[CommandOutcome, Championship]]]):
        self.pool, self.commands, self.namespace = pool, commands, namespace
        self.load_championship, self.execute = load, execute

    async def of(self, championship_id: str) -> tuple[int, Invitations]:
        """The championship's invitations and their stream's version."""
        return fold_invites(await read_stream(self.pool, invites_stream(championship_id)))

    def _event_id(self, championship_id: str, name: str) -> uuid.UUID:
        return uuid.uuid5(self.namespace, f"{championship_id}/team/{name}")

    async def propose(self, championship_id: str, command: RegisterTeam, by: str) -> tuple[TeamInvitation, bool]:
        """Invite the team's other players and substitutes; refused at once if the championship would refuse the
        team. Returns the invitation and whether it was already there (the same proposal sent again). One
        attempt: a proposal that meets another one is refused (``championship_busy``), for its sender to see."""
        async def load(_attempt: int) -> tuple[int, Invitations]:
            version, invites = await self.of(championship_id)
            if command.team_id not in invites:
                decide((await self.load_championship(championship_id)).state, command)   # a dry run
            return version, invites

        def decide_proposal(fold: tuple[int, Invitations]) -> Decision:
            version, invites = fold
            events = rules.decide(invites, ProposeTeam(command, by))
            if not events:
                return Decision(events, [], version)
            proposal = events[0]

            async def within_caps(conn) -> None:
                # Within the caps on proposals waiting for answers (services/proposals.py), counted on the
                # pending invitations' index and written with the proposal, under the people's proposal locks.
                await proposals.within_caps(conn, "teams", "team proposals", by, proposal.waiting,
                                            _PENDING_OF_PROPOSER, _PENDING_OF_INVITEE)

            async def pending(conn) -> None:
                await conn.executemany(_PENDING, [(championship_id, command.team_id, u, by) for u in proposal.waiting])

            rows = [INVITES_CODEC.encode(proposal, event_id=self._event_id(championship_id, command.team_id),
                                         metadata={"actor": by})]
            return Decision(events, rows, version, check=within_caps, also=pending)

        step = await self.commands.run(invites_stream(championship_id), load, decide_proposal, attempts=1,
                                       busy="another team was proposed at the same moment; try again")
        _, invites = step.fold
        if not step.decision.events:
            return invites[command.team_id], True
        return rules.evolve(invites, step.decision.events[0])[command.team_id], False

    async def answer(self, championship_id: str, team_id: str, user: str, accept: bool
                     ) -> tuple[TeamInvitation, CommandOutcome | None, Championship]:
        """An invited player answers; the last acceptance registers the team (as its proposer's command)."""
        async def load(_attempt: int) -> tuple[int, Invitations]:
            version, invites = await self.of(championship_id)
            if not rules.invited(invites.get(team_id), user):
                raise NotFound("not_invited", f"you are not invited to team {team_id}")
            return version, invites

        def decide_answer(fold: tuple[int, Invitations]) -> Decision:
            version, invites = fold
            events = rules.decide(invites, AnswerTeamInvitation(team_id, user, accept))

            async def answered(conn) -> None:
                # His answer takes the invitation out of the pending index (a refusal, the whole team's).
                await conn.execute(_ANSWERED, championship_id, team_id, None if not accept else user)

            rows = [INVITES_CODEC.encode(e, event_id=self._event_id(championship_id, f"{team_id}/{user}"),
                                         metadata={"actor": user}) for e in events]
            return Decision(events, rows, version, also=answered)

        step = await self.commands.run(invites_stream(championship_id), load, decide_answer,
                                       busy=f"championship {championship_id} kept changing; try again")
        _, invites = step.fold
        for e in step.decision.events:
            invites = rules.evolve(invites, e)
        invitation = invites[team_id]
        registration = rules.registration(invitation)
        if registration is None:
            return invitation, None, await self.load_championship(championship_id)
        outcome, champ = await self.execute(championship_id, f"register/{team_id}", lambda _: [registration],
                                            actor=invitation.proposal.by)
        return invitation, outcome, champ
