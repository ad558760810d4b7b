"""The webhook sender: delivers what the outbox (``services/webhooks/outbox``) queued, at least once, in log
order per endpoint and championship, signed by the Standard Webhooks scheme (``standardwebhooks``).

One sender is active at a time (an advisory lock; others wait as standbys). A delivery is marked delivered only
after its receiver answered 2xx, so a sender killed mid-delivery leaves it pending and the next sends it again
with the same ``webhook-id`` (the event id): receivers drop the ids they have seen. A failed attempt (no answer
within the timeout, an answer other than 2xx, a redirect, a target that is no longer allowed) is tried again
after an exponential backoff with jitter (``Retry``); the deliveries behind it in its line wait, so order holds.
After ``Retry.disable_after`` failed attempts in a row the endpoint is disabled; its deliveries stay queued and
go out, in order, once its organiser enables it again.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import random
import time
from dataclasses import dataclass
from datetime import datetime, timezone

import asyncpg
import httpx
from standardwebhooks.webhooks import Webhook

from services.eventstore.listen import woken_by, woken_within
from services.webhooks import targets
from services.webhooks.outbox import CHANNEL

log = logging.getLogger("baloot.webhooks")

RETRY_ENV = "BALOOT_WEBHOOK_RETRY"
USER_AGENT = "baloot-arena-webhooks/1"
MAX_ANSWER = 64 * 1024             # bytes of a receiver's answer read; its status is what counts


@dataclass(frozen=True)
class Retry:
    """After failed attempt n of a delivery, the next comes ``min(cap, base * factor ** (n - 1))`` seconds
    later, times a random factor within ``1 ± jitter``; ``disable_after`` failed attempts in a row disable the
    endpoint; ``timeout``: the seconds an attempt waits for an answer. The defaults: 5 s, 15 s, 45 s, 2¼ min,
    6¾ min, 20 min, 1 h, 3 h, then every 8 h; disabled at the 12th failure in a row, about 28 h after the first."""

    base: float = 5.0
    factor: float = 3.0
    cap: float = 8 * 3600.0
    jitter: float = 0.1
    disable_after: int = 12
    timeout: float = 10.0

    def nominal(self, failed: int) -> float:
        return min(self.cap, self.base * self.factor ** (failed - 1))

    def delay(self, failed: int, rng: random.Random) -> float:
        return self.nominal(failed) * rng.uniform(1 - self.jitter, 1 + self.jitter)

    @classmethod
    def from_env(cls, text: str | None = None) -> Retry:
        """From ``BALOOT_WEBHOOK_RETRY``, e.g. ``base=1,factor=2,disable_after=5`` (the rest as default)."""
        text = os.environ.get(RETRY_ENV, "") if text is None else text
        fields = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, _, value = part.partition("=")
            if key not in cls.__dataclass_fields__:
                raise ValueError(f"{RETRY_ENV}: no setting {key!r} (known: {', '.join(cls.__dataclass_fields__)})")
            fields[key] = int(value) if key == "disable_after" else float(value)
        return cls(**fields)


_COLUMNS = """d.delivery_id, d.endpoint_id, d.championship_id, d.event_id, d.payload, d.attempts,
       d.next_attempt_at, w.url, w.secret
  FROM webhook_deliveries d JOIN webhook_endpoints w USING (endpoint_id)
 WHERE d.status = 'pending' AND w.enabled"""
HEADS = f"""SELECT DISTINCT ON (d.endpoint_id, d.championship_id) {_COLUMNS}
 ORDER BY d.endpoint_id, d.championship_id, d.delivery_id"""
# The next of one line: its pending deliveries' index read in order, the first taken (no sort of the line).
LINE_HEAD = f"""SELECT {_COLUMNS} AND d.endpoint_id = $1 AND d.championship_id = $2
 ORDER BY d.delivery_id LIMIT 1"""
DELIVERED = """
WITH logged AS (INSERT INTO webhook_attempts VALUES ($1, $2, $3, $4, NULL, $5) ON CONFLICT DO NOTHING),
     done AS (UPDATE webhook_deliveries SET status = 'delivered', attempts = $2, last_attempt_at = $3,
                     last_status_code = $4, last_error = NULL, delivered_at = $3, next_attempt_at = NULL
               WHERE delivery_id = $1)
UPDATE webhook_endpoints SET failures = 0 WHERE endpoint_id = $6 AND failures <> 0"""
_LOCK = "SELECT {}(hashtext('baloot-arena/webhooks/' || current_schema()))"


def sign(secret: str, msg_id: str, body: str, at: datetime | None = None) -> dict[str, str]:
    """The Standard Webhooks headers of ``body`` sent as message ``msg_id`` at ``at`` (default now)."""
    at = at or datetime.now(timezone.utc)
    return {"webhook-id": msg_id, "webhook-timestamp": str(int(at.timestamp())),
            "webhook-signature": Webhook(secret).sign(msg_id, at, body)}


def _due(head, now: float) -> bool:
    """Whether a line's head may be tried at ``now`` (its time is stored to the microsecond: so compared)."""
    at = head["next_attempt_at"]
    return at is None or at.timestamp() <= now + 1e-6


def _at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


class WebhookSender:
    """``run()`` until cancelled; ``run_once()`` one pass over the lines whose head is due (tests drive it with
    their own ``clock``, seconds since the epoch, which times the retries; signatures carry the real time)."""

    def __init__(self, pool: asyncpg.Pool, retry: Retry | None = None, *, clock=time.time,
                 rng: random.Random | None = None, allow=None, concurrency: int = 8, burst: int = 100,
                 poll: float = 1.0):
        self.pool, self.retry = pool, retry or Retry.from_env()
        self.clock, self.rng = clock, rng or random.Random()
        self.allow = allow
        self.concurrency, self.burst, self.poll = concurrency, burst, poll
        self.next_due: float | None = None      # the earliest retry among the lines waiting, after a pass
        self.client = httpx.AsyncClient(follow_redirects=False, trust_env=False)

    async def close(self) -> None:
        await self.client.aclose()

    async def run_once(self) -> int:
        """Deliver each line's due head, and the line on after it while it succeeds; the attempts made."""
        now = self.clock()
        heads = await self.pool.fetch(HEADS)
        due = [h for h in heads if _due(h, now)]
        later = [h["next_attempt_at"].timestamp() for h in heads if not _due(h, now)]
        gate = asyncio.Semaphore(self.concurrency)

        async def line(head) -> int:
            async with gate:
                made = 0
                while head is not None and made < self.burst:
                    made += 1
                    retry_at = await self.deliver(head)
                    if retry_at is not None:
                        later.extend([retry_at] if math.isfinite(retry_at) else [])
                        break
                    head = await self.pool.fetchrow(LINE_HEAD, head["endpoint_id"], head["championship_id"])
                    if head is not None and not _due(head, self.clock()):
                        later.append(head["next_attempt_at"].timestamp())
                        break
                return made

        made = sum(await asyncio.gather(*map(line, due)))
        self.next_due = min(later, default=None)
        return made

    async def deliver(self, head) -> float | None:
        """One attempt at ``head``: None when it was delivered, else when it is tried again (or its endpoint
        disabled: infinity)."""
        at, started = self.clock(), time.perf_counter()
        code = error = None
        try:
            target = await targets.check(head["url"], self.allow)
            body = head["payload"]
            headers = {**sign(head["secret"], str(head["event_id"]), body), "content-type": "application/json",
                       "user-agent": USER_AGENT, "host": target.host}
            async with self.client.stream("POST", target.url, content=body.encode(), headers=headers,
                                          extensions=target.extensions, timeout=self.retry.timeout) as answer:
                code = answer.status_code
                read = 0                        # the answer read (so the connection is kept), up to a limit
                async for chunk in answer.aiter_raw():
                    read += len(chunk)
                    if read > MAX_ANSWER:
                        break
            if not 200 <= code < 300:
                error = f"the receiver answered {code}"
        except targets.TargetRefused as exc:
            error = f"target refused: {exc}"
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return await self._record(head, error is None, code, error, at, (time.perf_counter() - started) * 1000)

    async def _record(self, head, ok: bool, code: int | None, error: str | None, at: float,
                      ms: float) -> float | None:
        attempt = head["attempts"] + 1
        if ok:                                  # one statement: the attempt, the delivery and its endpoint at once
            await self.pool.execute(DELIVERED, head["delivery_id"], attempt, _at(at), code, ms, head["endpoint_id"])
            return None
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("INSERT INTO webhook_attempts VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                               head["delivery_id"], attempt, _at(at), code, error, ms)
            retry_at = at + self.retry.delay(attempt, self.rng)
            await conn.execute("UPDATE webhook_deliveries SET attempts = $2, last_attempt_at = $3, "
                               "last_status_code = $4, last_error = $5, next_attempt_at = $6 WHERE delivery_id = $1",
                               head["delivery_id"], attempt, _at(at), code, error, _at(retry_at))
            failures = await conn.fetchval("UPDATE webhook_endpoints SET failures = failures + 1 "
                                           "WHERE endpoint_id = $1 RETURNING failures", head["endpoint_id"])
            if failures is not None and failures >= self.retry.disable_after:
                await conn.execute("UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2 "
                                   "WHERE endpoint_id = $1", head["endpoint_id"],
                                   f"{failures} failed attempts in a row, the last: {error}")
                log.warning("webhook endpoint %s disabled after %d failures", head["endpoint_id"], failures)
                return float("inf")
            return retry_at

    async def run(self) -> None:
        """Hold the sender's lock (a standby waits for it), then deliver until cancelled, woken by the outbox's
        notifications and by the next retry due."""
        async with self.pool.acquire() as conn:
            while not await conn.fetchval(_LOCK.format("pg_try_advisory_lock")):
                await asyncio.sleep(self.poll)
            try:
                async with woken_by(conn, CHANNEL) as woken:
                    while True:
                        woken.clear()
                        if await self.run_once():
                            continue
                        wait = self.poll if self.next_due is None else min(self.poll, self.next_due - self.clock())
                        await woken_within(woken, max(0.01, wait))
            finally:
                if not conn.is_closed():
                    try:
                        await conn.fetchval(_LOCK.format("pg_advisory_unlock"))
                    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                        conn.terminate()
