"""An organiser's webhook endpoints: registered, listed, enabled again, removed; their delivery log, and a
delivery sent again on request. The secret that signs an endpoint's deliveries is shown once, when it is
registered."""

from __future__ import annotations

import base64
import secrets
from datetime import datetime

import msgspec

from services.eventstore import reads
from services.webhooks import targets
from services.webhooks.outbox import CHANNEL, KINDS

MAX_ENDPOINTS = 20                   # per owner


class EndpointOut(msgspec.Struct):
    endpoint_id: str
    url: str
    championship_id: str | None     # None: every championship its owner organises
    kinds: list[str]
    description: str
    enabled: bool
    disabled_reason: str | None
    failures: int                    # failed attempts in a row
    created_at: datetime
    pending: int                     # deliveries queued
    delivered: int


class AttemptOut(msgspec.Struct):
    attempt: int
    attempted_at: datetime
    status_code: int | None
    error: str | None
    duration_ms: float


class DeliveryOut(msgspec.Struct):
    delivery_id: int
    event_id: str                    # the idempotency key: the webhook-id header
    kind: str
    championship_id: str
    sequence: int                    # the event's place in the log
    status: str                      # pending or delivered
    attempts: int
    next_attempt_at: datetime | None
    last_attempt_at: datetime | None
    last_status_code: int | None
    last_error: str | None
    delivered_at: datetime | None
    log: list[AttemptOut] | None = None


class EndpointRefused(ValueError):
    def __init__(self, status: int, code: str, detail: str, field: str | None = None):
        super().__init__(detail)
        self.status, self.code, self.field = status, code, field


_ENDPOINT = """
SELECT w.*, (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = w.endpoint_id
              AND d.status = 'pending') AS pending,
            (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = w.endpoint_id
              AND d.status = 'delivered') AS delivered
  FROM webhook_endpoints w"""


def _endpoint(r) -> EndpointOut:
    return EndpointOut(r["endpoint_id"], r["url"], r["championship_id"], list(r["kinds"]), r["description"],
                       r["enabled"], r["disabled_reason"], r["failures"], r["created_at"], r["pending"],
                       r["delivered"])


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


async def register(db, owner: str, url: str, kinds: list[str], championship_id: str | None,
                   description: str = "") -> tuple[EndpointOut, str]:
    """A new endpoint of ``owner`` and its signing secret; EndpointRefused for a target that may not be
    reached (private addresses and the like: ``services/webhooks/targets``) or one endpoint too many."""
    try:
        await targets.check(url)
    except targets.TargetRefused as exc:
        raise EndpointRefused(422, "webhook_target_refused", str(exc), "url") from None
    async with db.acquire() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(hashtext('baloot-arena/webhook-owner/' || $1))", owner)
        if await conn.fetchval("SELECT count(*) FROM webhook_endpoints WHERE owner = $1", owner) >= MAX_ENDPOINTS:
            raise EndpointRefused(409, "too_many_endpoints", f"an organiser has at most {MAX_ENDPOINTS} webhook "
                                                             "endpoints: remove one first")
        endpoint_id, secret = f"wh_{secrets.token_hex(8)}", new_secret()
        await conn.execute(
            "INSERT INTO webhook_endpoints (endpoint_id, owner, championship_id, url, kinds, secret, description, "
            "from_position) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            endpoint_id, owner, championship_id, url, sorted(set(kinds), key=KINDS.index), secret, description,
            await reads.head_position(conn))
    return await get(db, owner, endpoint_id), secret


async def of_owner(db, owner: str) -> list[EndpointOut]:
    return [_endpoint(r) for r in await db.fetch(f"{_ENDPOINT} WHERE owner = $1 ORDER BY created_at, endpoint_id",
                                                 owner)]


async def get(db, owner: str, endpoint_id: str) -> EndpointOut:
    """The owner's endpoint; another's is as unknown as one that does not exist."""
    row = await db.fetchrow(f"{_ENDPOINT} WHERE owner = $1 AND endpoint_id = $2", owner, endpoint_id)
    if row is None:
        raise EndpointRefused(404, "unknown_webhook", f"you have no webhook endpoint {endpoint_id!r}")
    return _endpoint(row)


async def rotate_secret(db, owner: str, endpoint_id: str) -> tuple[EndpointOut, str]:
    """A new signing secret for the endpoint, in force at once (every attempt is signed when it is made, the
    queued ones included); the old one signs nothing more."""
    await get(db, owner, endpoint_id)
    secret = new_secret()
    await db.execute("UPDATE webhook_endpoints SET secret = $2 WHERE endpoint_id = $1", endpoint_id, secret)
    return await get(db, owner, endpoint_id), secret


async def remove(db, owner: str, endpoint_id: str) -> None:
    await get(db, owner, endpoint_id)
    await db.execute("DELETE FROM webhook_endpoints WHERE endpoint_id = $1", endpoint_id)


async def enable(db, owner: str, endpoint_id: str) -> EndpointOut:
    """Enable a disabled endpoint: its failures forgotten, its queued deliveries due at once, in order."""
    await get(db, owner, endpoint_id)
    async with db.acquire() as conn, conn.transaction():
        await conn.execute("UPDATE webhook_endpoints SET enabled = true, disabled_reason = NULL, failures = 0 "
                           "WHERE endpoint_id = $1", endpoint_id)
        await conn.execute("UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE endpoint_id = $1 "
                           "AND status = 'pending'", endpoint_id)
        await conn.execute("SELECT pg_notify($1, '')", CHANNEL)
    return await get(db, owner, endpoint_id)


def _delivery(r, log=None) -> DeliveryOut:
    return DeliveryOut(r["delivery_id"], str(r["event_id"]), r["kind"], r["championship_id"], r["position"],
                       r["status"], r["attempts"], r["next_attempt_at"], r["last_attempt_at"], r["last_status_code"],
                       r["last_error"], r["delivered_at"], log)


async def deliveries(db, owner: str, endpoint_id: str, before: int | None, limit: int,
                     status: str | None = None) -> list[DeliveryOut]:
    """The endpoint's deliveries, newest first, a page at a time (``before``: the last delivery id seen)."""
    await get(db, owner, endpoint_id)
    return [_delivery(r) for r in await db.fetch(
        "SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND ($2::bigint IS NULL OR delivery_id < $2) "
        "AND ($4::text IS NULL OR status = $4) ORDER BY delivery_id DESC LIMIT $3",
        endpoint_id, before, limit, status)]


async def delivery(db, owner: str, endpoint_id: str, delivery_id: int) -> DeliveryOut:
    """One delivery with every attempt made at it."""
    await get(db, owner, endpoint_id)
    return await _logged(db, endpoint_id, delivery_id)


async def _logged(db, endpoint_id: str, delivery_id: int) -> DeliveryOut:
    """The endpoint's delivery with its attempts (whose endpoint the caller has checked)."""
    row = await db.fetchrow("SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND delivery_id = $2",
                            endpoint_id, delivery_id)
    if row is None:
        raise EndpointRefused(404, "unknown_delivery", f"endpoint {endpoint_id} has no delivery {delivery_id}")
    attempts = await db.fetch("SELECT attempt, attempted_at, status_code, error, duration_ms FROM webhook_attempts "
                              "WHERE delivery_id = $1 ORDER BY attempt", delivery_id)
    return _delivery(row, [AttemptOut(*a) for a in attempts])


async def redeliver(db, owner: str, endpoint_id: str, delivery_id: int) -> DeliveryOut:
    """Queue the delivery again (a delivered one is sent once more, with the same webhook-id): due at once, in
    its place in its line."""
    endpoint = await get(db, owner, endpoint_id)
    if not endpoint.enabled:
        raise EndpointRefused(409, "webhook_disabled", f"endpoint {endpoint_id} is disabled "
                                                       f"({endpoint.disabled_reason}): enable it first")
    queued = await db.fetchval("UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = NULL, "
                               "delivered_at = NULL WHERE endpoint_id = $1 AND delivery_id = $2 RETURNING true",
                               endpoint_id, delivery_id)
    if queued:
        await db.execute("SELECT pg_notify($1, '')", CHANNEL)
    return await _logged(db, endpoint_id, delivery_id)            # 404 for a delivery it does not have
