"""Tables, the application layer: the command loop of a table's stream (load from the process's folds,
authorised commands decided by the engine, idempotent command ids, optimistic retries, append), for both
doors — the HTTP API and the workers (what a caller may see of one is ``services.access``'s); the seeds it deals from
(``seeds``); the folds this process keeps and the live feeds (``feeds``). It raises domain errors and
``services.errors``; it knows no HTTP."""

from domain.table import (
    TABLE_EVENTS, InvitationAccepted, InvitationDeclined, SeatHandedToBot, TableOpened, TableProposed,
)
from services.commands import CommandOutcome, command_digest
from services.tables.service import (
    CODEC, MAX_ATTEMPTS, SecretMismatch, Table, TableService, appended_fold, deal_finished, deal_rows, deal_spans,
    event_id,
    fold_each, fold_rows, private_events, stored_rows, stream_of,
)

__all__ = [
    "CODEC", "MAX_ATTEMPTS", "TABLE_EVENTS", "InvitationAccepted", "InvitationDeclined", "CommandOutcome",
    "SeatHandedToBot", "SecretMismatch", "Table", "TableOpened", "TableProposed", "TableService", "appended_fold",
    "command_digest", "deal_finished", "deal_rows", "deal_spans", "event_id", "fold_each", "fold_rows", "private_events",
    "stored_rows", "stream_of",
]
