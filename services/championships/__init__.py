"""Championships, the application layer: the command loop of a championship's streams (the tournament, its
check-ins, its team invitations) for the HTTP API and the workers, and what a finished game means for its
match. It raises domain errors and ``services.errors``; it knows no HTTP."""

from domain.tournament.checkin import CheckInClosed, CheckIns, PlayerCheckedIn, team_checked_in
from services.commands import CommandOutcome
from services.championships.service import (
    CHECK_IN_CODEC, CODEC, INVITES_CODEC, SYSTEM_ACTOR, Championship, ChampionshipService, RunSettings,
    TeamInvitation, TeamInvitationAnswered, TeamProposed, championship_id_for, check_in_stream, decode_switches,
    encode_switches, event_id, fold_check_ins, fold_invites, fold_rows, invites_stream, stream_of, table_id_for,
    table_profile,
)

__all__ = [
    "CHECK_IN_CODEC", "CODEC", "INVITES_CODEC", "SYSTEM_ACTOR", "CheckInClosed", "CheckIns", "Championship",
    "ChampionshipService", "CommandOutcome", "PlayerCheckedIn", "RunSettings", "TeamInvitation", "TeamInvitationAnswered",
    "TeamProposed", "championship_id_for", "check_in_stream", "decode_switches", "encode_switches", "event_id",
    "fold_check_ins", "fold_invites", "fold_rows", "invites_stream", "stream_of", "table_id_for", "table_profile",
    "team_checked_in",
]
