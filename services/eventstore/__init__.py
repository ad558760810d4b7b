"""The event store: an append-only PostgreSQL log with per-stream hash chains, and its projections.

    from services.eventstore import append, read_stream, read_all, NewEvent

    version = await append(pool, "table-7", 0, [NewEvent(event_type="table_opened", data={"seats": 4})])
    events = await read_stream(pool, "table-7")

Layers: `migrations` (schema), `store` (append and read), `reads` (the log's other questions: heads, which
streams hold which kinds, counts, audits; the only SQL on `events` outside the anchor), `codec` (domain Structs
on the wire, upcasters), `subscriptions` (live feed, projection runner).
"""

from services.eventstore.codec import Codec, CodecError, Upcasters, event_type, new_event, schema_version
from services.eventstore.migrations import MIGRATIONS_DIR, MigrationError, applied_migrations, migrate
from services.eventstore.store import (
    START,
    AppendResult,
    Checkpoint,
    ConcurrencyError,
    DuplicateEventError,
    NewEvent,
    RecordedEvent,
    append,
    append_many,
    append_reporting,
    has_pending,
    head_hash,
    notified_streams,
    read_all,
    read_streams,
    read_stream,
    stream_version,
    verify_stream,
)
from services.eventstore.subscriptions import (
    CHANNEL,
    Projection,
    ProjectionFailed,
    ProjectionRunner,
    projection,
    projection_state,
    rebuild_projection,
    run_projection,
    subscribe,
)

__all__ = [
    "CHANNEL", "START", "Checkpoint", "Codec", "CodecError", "ConcurrencyError", "DuplicateEventError",
    "MIGRATIONS_DIR", "MigrationError", "NewEvent", "Projection", "ProjectionFailed", "ProjectionRunner",
    "AppendResult", "RecordedEvent", "Upcasters", "append", "append_many", "append_reporting", "applied_migrations", "event_type", "has_pending", "head_hash", "migrate",
    "notified_streams",
    "new_event", "projection", "projection_state", "read_all", "read_stream", "read_streams", "rebuild_projection",
    "run_projection", "schema_version", "stream_version", "subscribe", "verify_stream",
]
