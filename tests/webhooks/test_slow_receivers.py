"""A slow receiver delays its own deliveries only (the review's item 6): a receiver that drips its answer a
byte at a time forever does not hold another organiser's deliveries, an attempt ends at its whole-attempt
deadline however steadily the bytes come, an answer is read to a small cap (its status is what counts), and one
organiser's lines cannot take every slot of the sender. Each waits on what the sender recorded (its ``observe``
hook) or what a receiver saw, with a generous guard that turns a hang into a failure; none times the sender."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest

from services.webhooks import endpoints
from services.webhooks.outbox import KINDS
from services.webhooks.sender import MAX_ANSWER, Retry, WebhookSender
from tests.stored_championship import knock_out
from tests.webhooks.conftest import queue
from tests.webhooks.servers import Chatty, Drip, Healthy

GUARD = 30.0                 # seconds before a wait that should end is called a hang (it ends in well under 1 s)
FOREVER = 3600.0             # a deadline no test reaches: what ends an attempt there is something else


class Watch:
    """The sender's ``observe`` hook: the deliveries each endpoint has had delivered and the attempts that
    failed, and an event to wait on for the next."""

    def __init__(self) -> None:
        self.delivered: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.changed = asyncio.Event()

    def __call__(self, head, ok: bool) -> None:
        (self.delivered if ok else self.failed)[head["endpoint_id"]] += 1
        self.changed.set()

    async def until(self, what: str, done) -> None:
        try:
            async with asyncio.timeout(GUARD):
                while not done():
                    self.changed.clear()
                    await self.changed.wait()
        except TimeoutError:
            raise AssertionError(f"{what}: not within {GUARD:g} s "
                                 f"(delivered {dict(self.delivered)}, failed {dict(self.failed)})") from None


async def within(what: str, awaitable):
    try:
        async with asyncio.timeout(GUARD):
            return await awaitable
    except TimeoutError:
        raise AssertionError(f"{what}: not within {GUARD:g} s") from None


async def endpoint(pool, owner: str, url: str, teams: int) -> str:
    """An endpoint of ``owner`` for the knock-out of ``teams`` teams that tests/stored_championship will store
    (registered first: an endpoint is owed only the events after it)."""
    await pool.execute("INSERT INTO users (user_id, name) VALUES ($1, $1) ON CONFLICT DO NOTHING", owner)
    made, _ = await endpoints.register(pool, owner, url, list(KINDS), f"cup-{teams}-single_elimination")
    return made.endpoint_id


async def owed(pool, endpoint_id: str) -> list[str]:
    return [r[0] for r in await pool.fetch("SELECT event_id::text FROM webhook_deliveries WHERE endpoint_id = $1 "
                                           "ORDER BY delivery_id", endpoint_id)]


async def attempts(pool, endpoint_id: str) -> list:
    return await pool.fetch("SELECT a.* FROM webhook_attempts a JOIN webhook_deliveries d USING (delivery_id) "
                            "WHERE d.endpoint_id = $1 ORDER BY a.attempted_at", endpoint_id)


@pytest.fixture
async def servers():
    started = []

    async def start(server):
        started.append(server)
        return await server.start()

    yield start
    for server in started:
        await server.close()


async def test_a_dripping_receiver_does_not_delay_another_organisers_deliveries(pool, clock, servers):
    drip, healthy = await servers(Drip(interval=0.05)), await servers(Healthy())
    dripping = await endpoint(pool, "slow-club", drip.url, 4)
    fine = await endpoint(pool, "other-club", healthy.url, 8)
    await knock_out(pool, 4)
    await queue(pool)
    watch = Watch()
    sender = WebhookSender(pool, Retry(timeout=FOREVER), clock=clock, rng=random.Random(1), observe=watch)
    running = asyncio.create_task(sender.run())
    try:
        await within("the dripping receiver's first delivery sent", drip.connected.wait())
        await knock_out(pool, 8)                  # the other organiser's championship, queued meanwhile
        await queue(pool)
        other = await owed(pool, fine)
        assert len(other) >= 5
        await watch.until("the other organiser's deliveries", lambda: watch.delivered[fine] == len(other))

        assert healthy.ids == other, "each once, in the log's order"
        assert await attempts(pool, dripping) == [], "the drip's first attempt is still under way"
        assert not drip.closed.is_set() and drip.dripped > 0 and drip.ids == [(await owed(pool, dripping))[0]]
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        await sender.close()
    await within("the sender stopped hangs up on the drip", drip.closed.wait())
    head = await pool.fetchrow("SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1 "
                               "ORDER BY delivery_id LIMIT 1", dripping)
    assert tuple(head) == ("pending", 0), "an attempt cut short is sent again (at least once)"


async def test_an_attempt_ends_at_its_deadline_however_steadily_the_answer_drips(pool, clock, servers):
    drip = await servers(Drip(interval=0.02))     # a byte far more often than the deadline: no read waits long
    dripping = await endpoint(pool, "slow-club", drip.url, 4)
    await knock_out(pool, 4)
    await queue(pool)
    deadline = 0.5
    sender = WebhookSender(pool, Retry(timeout=deadline, base=2.0), clock=clock, rng=random.Random(1))
    try:
        assert await within("one pass over the dripping line", sender.run_once()) == 1
    finally:
        await sender.close()
    (attempt,) = await attempts(pool, dripping)
    assert attempt["status_code"] is None and attempt["error"] == "deadline: no answer within 0.5 s"
    assert attempt["duration_ms"] >= deadline * 1000, "the deadline, not an error before it, ended the attempt"
    await within("the sender hangs up on the drip", drip.closed.wait())
    assert drip.dripped > 1, "bytes kept coming, none of them a whole answer"
    head = await pool.fetchrow("SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY delivery_id "
                               "LIMIT 1", dripping)
    assert head["status"] == "pending" and head["last_error"] == attempt["error"]
    assert 1.8 <= head["next_attempt_at"].timestamp() - clock.now <= 2.2, "retried on the schedule"
    assert (await endpoints.get(pool, "slow-club", dripping)).failures == 1


async def test_an_answer_is_read_only_to_its_cap_and_its_status_counts(pool, clock, servers):
    assert MAX_ANSWER == 4 * 1024                          # docs/webhooks.md says so
    chatty = await servers(Chatty(sent=8 * 1024))          # past the cap, then nothing more, the connection held
    talking = await endpoint(pool, "chatty-club", chatty.url, 4)
    await knock_out(pool, 4)
    await queue(pool)
    sender = WebhookSender(pool, Retry(timeout=FOREVER), clock=clock, rng=random.Random(1))
    try:
        made = await within("a pass over a receiver whose answer never ends", sender.run_once())
    finally:
        await sender.close()
    assert made == len(await owed(pool, talking)) and made >= 5
    assert [(a["status_code"], a["error"]) for a in await attempts(pool, talking)] == [(200, None)] * made
    assert await pool.fetchval("SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1 "
                               "AND status = 'delivered'", talking) == made
    assert chatty.ids == await owed(pool, talking)


async def test_one_organisers_slow_lines_cannot_take_every_slot(pool, clock, servers):
    """Two lines in flight at most, one of them an organiser's: his two dripping endpoints get one slot (the
    second waits its turn), and the other organiser's deliveries go out through the other."""
    first, second, healthy = (await servers(Drip(interval=0.05)), await servers(Drip(interval=0.05)),
                              await servers(Healthy()))
    await endpoint(pool, "slow-club", first.url, 4)
    await endpoint(pool, "slow-club", second.url, 5)
    fine = await endpoint(pool, "other-club", healthy.url, 8)
    for teams in (4, 5, 8):
        await knock_out(pool, teams)
    await queue(pool)
    other = await owed(pool, fine)
    watch = Watch()
    sender = WebhookSender(pool, Retry(timeout=FOREVER), clock=clock, rng=random.Random(1), observe=watch,
                           concurrency=2, per_owner=1)
    running = asyncio.create_task(sender.run())
    try:
        await within("the slow club's oldest line sent", first.connected.wait())
        await watch.until("the other organiser's deliveries", lambda: watch.delivered[fine] == len(other))
        assert healthy.ids == other
        assert not second.connected.is_set(), "the slow club's second line waits for his slot"
        assert sender.owners["slow-club"] == 1
        assert [c for _, c in sender.lines if c != "cup-8-single_elimination"] == ["cup-4-single_elimination"]
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        await sender.close()
