"""The webhook sender: delivers what the outbox (``services/webhooks/outbox``) queued, at least once, in log
order per endpoint and championship, signed by the Standard Webhooks scheme (``standardwebhooks``).

One sender is active at a time (an advisory lock; others wait as standbys). A delivery is marked delivered only
after its receiver answered 2xx, so a sender killed mid-delivery leaves it pending and the next sends it again
with the same ``webhook-id`` (the event id): receivers drop the ids they have seen. A failed attempt (no answer
within the attempt's deadline, an answer other than 2xx, a redirect, a target that is no longer allowed) is
tried again after an exponential backoff with jitter (``Retry``); the deliveries behind it in its line wait, so
order holds. Each line (endpoint, championship) is sent by a task of its own, within a bounded number in flight,
so that a slow or dead receiver delays its own lines only (``WebhookSender``). After ``Retry.disable_after``
failed attempts in a row the endpoint is disabled; its deliveries stay queued and go out, in order, once its
organiser enables it again.
"""

from __future__ import annotations

import asyncio
import logging
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
MAX_ANSWER = 4 * 1024              # bytes of a receiver's answer read; its status is what counts
CONCURRENCY = 32                   # lines in flight at once
PER_OWNER = 4                      # of which one organiser's


@dataclass(frozen=True)
class Retry:
    """After failed attempt n of a delivery, the next comes ``min(cap, base * factor ** (n - 1))`` seconds
    later, times a random factor within ``1 ± jitter``; ``disable_after`` failed attempts in a row disable the
    endpoint; ``timeout``: the seconds a whole attempt may take (resolving, connecting, sending and reading the
    answer, however slowly the receiver drips it), after which it is a failure. The defaults: 5 s, 15 s, 45 s,
    2¼ min, 6¾ min, 20 min, 1 h, 3 h, then every 8 h; disabled at the 12th failure in a row, about 28 h after
    the first."""

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
       d.next_attempt_at, w.url, w.secret, w.owner
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
    their own ``clock``, seconds since the epoch, which times the retries; signatures carry the real time).

    Each line (endpoint, championship) is delivered by a task of its own, so that a slow or dead receiver holds
    only its own lines: at most ``concurrency`` lines in flight, at most ``per_owner`` of them an organiser's
    (his endpoints, however many lines they have, cannot take every slot), and a line whose head is due starts
    as soon as a slot is free, whatever the others are doing. A line's task sends its head and the deliveries
    after it while they succeed, up to ``burst`` (then it gives its slot back, the oldest due line first).
    ``observe`` (if given) is called after each attempt is recorded, with the delivery's row and whether it was
    delivered: what tests and benchmarks wait on."""

    def __init__(self, pool: asyncpg.Pool, retry: Retry | None = None, *, clock=time.time,
                 rng: random.Random | None = None, allow=None, concurrency: int = CONCURRENCY,
                 per_owner: int = PER_OWNER, burst: int = 100, poll: float = 1.0, observe=None):
        self.pool, self.retry = pool, retry or Retry.from_env()
        self.clock, self.rng = clock, rng or random.Random()
        self.allow = allow
        self.concurrency, self.per_owner, self.burst, self.poll = concurrency, per_owner, burst, poll
        self.observe = observe
        self.next_due: float | None = None      # the earliest retry among the lines waiting, after a pass
        self.made = 0                           # attempts made, all told
        self.lines: dict[tuple[str, str], asyncio.Task] = {}     # the lines in flight, by (endpoint, championship)
        self.owners: dict[str, int] = {}        # lines in flight per organiser
        self.errors: list[BaseException] = []   # what a line's task raised (the database lost): raised by the loop
        self.wake: asyncio.Event | None = None  # set when a line ends (its slot is free): the loop looks again
        self.client = httpx.AsyncClient(follow_redirects=False, trust_env=False)

    async def close(self) -> None:
        await self.stop_lines()
        await self.client.aclose()

    def _start(self, heads, now: float, skip: set | frozenset = frozenset()) -> list[tuple[str, str]]:
        """Start a task for each line whose head is due and that is not in flight (nor in ``skip``), the oldest
        head first, while slots are free; the lines started. ``next_due``: the earliest of the others' heads."""
        later, started = [], []
        for head in sorted(heads, key=lambda h: h["delivery_id"]):
            key = (head["endpoint_id"], head["championship_id"])
            if key in self.lines or key in skip:
                continue
            if not _due(head, now):
                later.append(head["next_attempt_at"].timestamp())
                continue
            owner = head["owner"]
            if len(self.lines) >= self.concurrency or self.owners.get(owner, 0) >= self.per_owner:
                continue                        # due, waiting for a slot: looked at again when a line ends
            self.owners[owner] = self.owners.get(owner, 0) + 1
            task = self.lines[key] = asyncio.create_task(self._line(head), name=f"webhook line {key}")
            task.add_done_callback(lambda t, key=key, owner=owner: self._ended(key, owner, t))
            started.append(key)
        self.next_due = min(later, default=None)
        return started

    def _ended(self, key: tuple[str, str], owner: str, task: asyncio.Task) -> None:
        self.lines.pop(key, None)
        self.owners[owner] -= 1
        if not self.owners[owner]:
            del self.owners[owner]
        if not task.cancelled() and task.exception() is not None:
            self.errors.append(task.exception())
        if self.wake is not None:
            self.wake.set()

    def _raise(self) -> None:
        if self.errors:
            raise self.errors.pop(0)

    async def _line(self, head) -> None:
        """Deliver the line's head, and the line on after it while it succeeds (up to ``burst``)."""
        made = 0
        while head is not None and made < self.burst:
            made += 1
            self.made += 1
            if await self.deliver(head) is not None:
                return
            head = await self.pool.fetchrow(LINE_HEAD, head["endpoint_id"], head["championship_id"])
            if head is not None and not _due(head, self.clock()):
                return

    async def stop_lines(self) -> None:
        """Cancel the lines in flight and wait for them (an attempt cut short stays pending: sent again)."""
        tasks = list(self.lines.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def run_once(self) -> int:
        """One pass (tests and tools): every line whose head is due started, a slot at a time as they free,
        and the pass over when they have all ended; the attempts made. ``next_due`` then says when a line is due
        next (now, for one left due by its ``burst``)."""
        made = self.made
        heads, now, ran = await self.pool.fetch(HEADS), self.clock(), set()
        try:
            while True:
                ran.update(self._start(heads, now, ran))
                if not self.lines:
                    break
                await asyncio.wait(list(self.lines.values()), return_when=asyncio.FIRST_COMPLETED)
                self._raise()
        finally:
            await self.stop_lines()
        self._raise()
        heads, now = await self.pool.fetch(HEADS), self.clock()
        self.next_due = min((now if _due(h, now) else h["next_attempt_at"].timestamp() for h in heads), default=None)
        return self.made - made

    async def deliver(self, head) -> float | None:
        """One attempt at ``head``, all of it (resolving and checking the target, connecting, sending, reading
        the answer) within ``Retry.timeout`` seconds, and at most ``MAX_ANSWER`` bytes of the answer read: None
        when it was delivered, else when it is tried again (or its endpoint disabled: infinity)."""
        at, started = self.clock(), time.perf_counter()
        code = error = None
        try:
            async with asyncio.timeout(self.retry.timeout):
                target = await targets.check(head["url"], self.allow)
                body = head["payload"]
                headers = {**sign(head["secret"], str(head["event_id"]), body), "content-type": "application/json",
                           "user-agent": USER_AGENT, "host": target.host}
                async with self.client.stream("POST", target.url, content=body.encode(), headers=headers,
                                              extensions=target.extensions, timeout=self.retry.timeout) as answer:
                    code = answer.status_code
                    read = 0                    # the answer read (so the connection is kept), up to the cap
                    async for chunk in answer.aiter_raw():
                        read += len(chunk)
                        if read >= MAX_ANSWER:
                            break
        except TimeoutError:
            if code is None:                    # a status in time counts; its body is not needed
                error = f"deadline: no answer within {self.retry.timeout:g} s"
        except targets.TargetRefused as exc:
            error = f"target refused: {exc}"
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if error is None and not 200 <= code < 300:
            error = f"the receiver answered {code}"
        ok = error is None
        retry_at = await self._record(head, ok, code, error, at, (time.perf_counter() - started) * 1000)
        if self.observe is not None:
            self.observe(head, ok)
        return retry_at

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
        """Hold the sender's lock (a standby waits for it), then deliver until cancelled: the lines due started
        whenever the outbox notifies, a line ends (a slot is free) or the next retry is due. The lines in flight
        are stopped before the lock is let go, so that no standby sends a line this one is still sending."""
        async with self.pool.acquire() as conn:
            while not await conn.fetchval(_LOCK.format("pg_try_advisory_lock")):
                await asyncio.sleep(self.poll)
            try:
                async with woken_by(conn, CHANNEL) as woken:
                    self.wake = woken
                    while True:
                        woken.clear()
                        self._raise()
                        # The lines in flight before the read are skipped even if they end during it: what it
                        # read of them is stale (a head since delivered); their end wakes this loop again.
                        busy = set(self.lines)
                        self._start(await self.pool.fetch(HEADS), self.clock(), busy)
                        wait = self.poll if self.next_due is None else min(self.poll, self.next_due - self.clock())
                        await woken_within(woken, max(0.01, wait))
            finally:
                self.wake = None
                await self.stop_lines()
                if not conn.is_closed():
                    try:
                        await conn.fetchval(_LOCK.format("pg_advisory_unlock"))
                    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
                        conn.terminate()
