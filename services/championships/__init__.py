"""Championships, the application layer: the command loop of a championship's streams (the tournament, its
check-ins, its team invitations) for the HTTP API and the workers, and its matches at the tables. It raises
domain errors and ``services.errors``; it knows no HTTP."""

from domain.tournament.checkin import CheckInClosed, CheckIns, PlayerCheckedIn, team_checked_in
from domain.tournament.invitations import TeamInvitation, TeamInvitationAnswered, TeamProposed
from services.championships.checkins import CHECK_IN_CODEC, check_in_stream, closes_at, fold_check_ins
from services.championships.invitations import INVITES_CODEC, fold_invites, invites_stream
from services.championships.matches import (
    SYSTEM_ACTOR, decode_switches, encode_switches, table_id_for, table_profile,
)
from services.championships.names import team_names
from services.championships.service import (
    CODEC, Championship, ChampionshipService, RunSettings, championship_id_for, event_id, fold_rows, stream_of,
)
from services.commands import CommandOutcome

__all__ = [
    "CHECK_IN_CODEC", "CODEC", "INVITES_CODEC", "SYSTEM_ACTOR", "CheckInClosed", "CheckIns", "Championship",
    "ChampionshipService", "CommandOutcome", "PlayerCheckedIn", "RunSettings", "TeamInvitation",
    "TeamInvitationAnswered", "TeamProposed", "championship_id_for", "check_in_stream", "closes_at",
    "decode_switches", "encode_switches", "event_id", "fold_check_ins", "fold_invites", "fold_rows",
    "invites_stream", "stream_of", "table_id_for", "table_profile", "team_checked_in", "team_names",
]
