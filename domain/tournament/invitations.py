"""Team invitations: a player who registers a team names its other players and substitutes, and the team is
registered only once each of them has accepted, so that nobody is entered, or locked out of the event, without
his consent (its own stream, ``team-invites-{championship}``, beside the championship's).

An organiser registers teams directly; a player's ``RegisterTeam`` becomes a ``team_proposed``, each invitee
answers (``team_invitation_answered``), one refusal ends the proposal, and the last acceptance gives the
``RegisterTeam`` the proposer asked for.

Its decider: ``decide(invitations, command) -> events`` and ``evolve(invitations, event) -> invitations``.
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


class ProposeTeam(msgspec.Struct, frozen=True):
    """``by`` proposes ``team`` (its ``RegisterTeam``), inviting everyone it names but him."""

    team: RegisterTeam
    by: str


class AnswerTeamInvitation(msgspec.Struct, frozen=True):
    """``user``, invited to team ``team_id``, accepts or refuses."""

    team_id: str
    user: str
    accept: bool


def decide(invitations: Invitations, command) -> list:
    """The events of an invitation command, or a ``ChampionshipRuleError`` naming the rule it breaks; none
    when it was sent before (the same proposal, an answer given). (Whether the championship would register
    the team, and whether the user is invited at all, are asked before.)"""
    match command:
        case ProposeTeam():
            return _decide_propose(invitations, command)
        case AnswerTeamInvitation():
            return _decide_answer(invitations, command)
    raise TypeError(f"{type(command).__name__} is not a team invitation command")


def _decide_propose(invitations: Invitations, command: ProposeTeam) -> list:
    """Another proposal of a team already proposed is refused (``already_proposed``)."""
    team, by = command.team, command.by
    known = invitations.get(team.team_id)
    if known is not None:
        p = known.proposal
        if (p.by, p.players, p.substitutes) == (by, team.players, team.substitutes):
            return []
        raise ChampionshipRuleError("already_proposed", f"team {team.team_id} is already proposed")
    waiting = tuple(u for u in (*team.players, *team.substitutes) if u != by)
    return [TeamProposed(team_id=team.team_id, players=team.players, substitutes=team.substitutes, by=by,
                         waiting=waiting)]


def _decide_answer(invitations: Invitations, command: AnswerTeamInvitation) -> list:
    """A declined team takes no more answers (``invitation_declined``)."""
    invitation = invitations[command.team_id]
    if invitation.declined:
        raise ChampionshipRuleError("invitation_declined",
                                    f"team {invitation.proposal.team_id} was declined by one of its players")
    if command.user not in invitation.waiting:
        return []
    return [TeamInvitationAnswered(team_id=command.team_id, user=command.user, accepted=command.accept)]


def invited(invitation: TeamInvitation | None, user: str) -> bool:
    """Whether ``user`` is (or was) invited to join the team."""
    return invitation is not None and (user in invitation.waiting or user in invitation.proposal.waiting)


def registration(invitation: TeamInvitation) -> RegisterTeam | None:
    """The team's registration (its proposer's command) once every invitee has accepted; None before, or
    after a refusal."""
    if invitation.declined or invitation.waiting:
        return None
    p = invitation.proposal
    return RegisterTeam(p.team_id, p.players, p.substitutes)
