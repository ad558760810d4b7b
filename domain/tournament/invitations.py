"""Team invitations: a player who registers a team names its other players and substitutes, and the team is
registered only once each of them has accepted, so that nobody is entered, or locked out of the event, without
his consent (its own stream, ``team-invites-{championship}``, beside the championship's).

An organiser registers teams directly; a player's ``RegisterTeam`` becomes a ``team_proposed``, each invitee
answers (``team_invitation_answered``), one refusal ends the proposal, and the last acceptance gives the
``RegisterTeam`` the proposer asked for.
"""

from __future__ import annotations

from typing import ClassVar

import msgspec

from domain.tournament.commands import RegisterTeam
from domain.tournament.errors import ChampionshipRuleError


class TeamProposed(msgspec.Struct, frozen=True, tag="team_proposed", kw_only=True):
    """A player proposes a team; the other players and substitutes named must accept before it registers."""

    schema_version: ClassVar[int] = 1
    team_id: str
    players: tuple[str, ...]
    substitutes: tuple[str, ...]
    by: str
    waiting: tuple[str, ...]


class TeamInvitationAnswered(msgspec.Struct, frozen=True, tag="team_invitation_answered", kw_only=True):
    schema_version: ClassVar[int] = 1
    team_id: str
    user: str
    accepted: bool


INVITATION_EVENTS = (TeamProposed, TeamInvitationAnswered)


class TeamInvitation(msgspec.Struct, frozen=True):
    proposal: TeamProposed
    waiting: tuple[str, ...]                  # invitees who have not answered
    declined: bool = False


Invitations = dict[str, TeamInvitation]       # by team id


def evolve(invitations: Invitations, e) -> Invitations:
    """The invitations after event ``e``."""
    if isinstance(e, TeamProposed):
        return {**invitations, e.team_id: TeamInvitation(e, e.waiting)}
    inv = invitations[e.team_id]
    return {**invitations, e.team_id: TeamInvitation(
        inv.proposal, tuple(u for u in inv.waiting if u != e.user), inv.declined or not e.accepted)}


def propose(invitations: Invitations, command: RegisterTeam, by: str) -> TeamProposed | None:
    """The proposal of ``command``'s team by ``by``, inviting everyone it names but him; None when he sent the
    same proposal before. Another proposal of that team is refused (``already_proposed``). (Whether the
    championship would register the team is its own decider's to say, before this.)"""
    known = invitations.get(command.team_id)
    if known is not None:
        p = known.proposal
        if (p.by, p.players, p.substitutes) == (by, command.players, command.substitutes):
            return None
        raise ChampionshipRuleError("already_proposed", f"team {command.team_id} is already proposed")
    waiting = tuple(u for u in (*command.players, *command.substitutes) if u != by)
    return TeamProposed(team_id=command.team_id, players=command.players, substitutes=command.substitutes,
                        by=by, waiting=waiting)


def invited(invitation: TeamInvitation | None, user: str) -> bool:
    """Whether ``user`` is (or was) invited to join the team."""
    return invitation is not None and (user in invitation.waiting or user in invitation.proposal.waiting)


def answer(invitation: TeamInvitation, user: str, accept: bool) -> TeamInvitationAnswered | None:
    """``user``'s answer; None when he has answered already. A declined team takes no more answers
    (``invitation_declined``)."""
    if invitation.declined:
        raise ChampionshipRuleError("invitation_declined",
                                    f"team {invitation.proposal.team_id} was declined by one of its players")
    if user not in invitation.waiting:
        return None
    return TeamInvitationAnswered(team_id=invitation.proposal.team_id, user=user, accepted=accept)


def registration(invitation: TeamInvitation) -> RegisterTeam | None:
    """The team's registration (its proposer's command) once every invitee has accepted; None before, or
    after a refusal."""
    if invitation.declined or invitation.waiting:
        return None
    p = invitation.proposal
    return RegisterTeam(p.team_id, p.players, p.substitutes)
