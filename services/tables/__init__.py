"""Tables, the application layer: the command loop of a table's stream (load with cache, authorised
commands decided by the engine, idempotent command ids, optimistic retries, append), for both doors — the
HTTP API and the workers. It raises domain errors and ``services.errors``; it knows no HTTP."""

from domain.table import (
    TABLE_EVENTS, InvitationAccepted, InvitationDeclined, SeatHandedToBot, TableOpened, TableProposed,
)
from services.repository import CommandOutcome, command_digest
from services.tables.service import (
    CODEC, MAX_ATTEMPTS, SecretMismatch, Table, TableService, deal_finished, deal_spans, event_id, appended_fold, fold_each, stored_rows,
    fold_rows, private_events, stream_of,
)

__all__ = [
    "CODEC", "MAX_ATTEMPTS", "TABLE_EVENTS", "InvitationAccepted", "InvitationDeclined", "CommandOutcome", "SeatHandedToBot",
    "SecretMismatch", "Table", "TableOpened", "TableProposed", "TableService", "command_digest", "deal_finished",
    "deal_spans", "event_id", "appended_fold", "fold_each", "fold_rows", "stored_rows", "private_events", "stream_of",
]
