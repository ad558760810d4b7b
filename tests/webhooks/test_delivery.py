"""Webhook deliveries on real PostgreSQL to a real receiver process on loopback: every event of the kinds an
endpoint chose reaches it exactly once by idempotency key and in log order per championship, through a
receiver crash; a receiver that always fails is retried on the stated schedule and then disabled, and nothing
queued for it is lost; the outbox rebuilt from zero queues nothing twice; a target the allow-list no longer
admits is not reached; a forged or replayed delivery is refused by the verification code the docs show."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from services.eventstore import rebuild_projection
from services.webhooks import endpoints
from services.webhooks.endpoints import new_secret
from services.webhooks.outbox import KINDS, webhooks_read_model
from services.webhooks.sender import Retry, WebhookSender, sign
from tests.stored_championship import knock_out
from tests.webhooks.conftest import drain, pending, queue
from tests.webhooks.receiver import documented_receive

# The championship events each kind of webhook stands for (the tables' kinds need tables: tests/api).
SENT = {"registration_closed": "registration.closed", "draw_made": "draw.made", "round_paired": "round.started",
        "match_result_recorded": "match.ended", "match_forfeited": "match.ended",
        "match_double_forfeited": "match.ended", "championship_finished": "championship.finished"}


async def endpoint_for(pool, receiver, kinds=KINDS, championship_id=None) -> str:
    await pool.execute("INSERT INTO users (user_id, name) VALUES ('organiser', 'organiser') ON CONFLICT DO NOTHING")
    endpoint, receiver.secret = await endpoints.register(pool, "organiser", receiver.url, list(kinds),
                                                         championship_id)
    return endpoint.endpoint_id


async def expected(pool, cid: str, kinds=KINDS) -> list[tuple[str, str]]:
    """(event id, kind) of the championship's events an endpoint of ``kinds`` is owed, in log order: read from
    the log itself."""
    rows = await pool.fetch("SELECT event_id::text, event_type FROM events WHERE stream_id = $1 "
                            "AND event_type = ANY($2) ORDER BY position", f"championship-{cid}", list(SENT))
    return [(r["event_id"], SENT[r["event_type"]]) for r in rows if SENT[r["event_type"]] in kinds]


def received(receiver, cid: str) -> list[tuple[str, str]]:
    return [(e["id"], e["type"]) for e in receiver.fresh() if e["championship_id"] == cid]


def sender_for(pool, clock, **retry) -> WebhookSender:
    return WebhookSender(pool, Retry(**{"base": 1.0, "factor": 2.0, "jitter": 0.1, "disable_after": 50, **retry}),
                         clock=clock, rng=random.Random(7))


async def test_a_receiver_killed_mid_championship_gets_every_delivery_once_and_in_order(pool, receiver, clock):
    await endpoint_for(pool, receiver)
    cups = [(await knock_out(pool, 8))[0], (await knock_out(pool, 4))[0]]
    await queue(pool)
    owed = {cid: await expected(pool, cid) for cid in cups}
    assert all(len(o) >= 5 for o in owed.values())
    sender = sender_for(pool, clock)
    try:
        receiver.start("--crash-at", "5")                 # handles the 5th, dies before answering it
        await sender.run_once()
        assert receiver.proc.poll() is not None, "the receiver should have crashed"
        assert len(receiver.fresh()) == 5
        clock.now = sender.next_due                       # retries while it is down: refused connections
        assert await sender.run_once() >= 1
        down = await pool.fetch("SELECT error FROM webhook_attempts WHERE status_code IS NULL")
        assert down and all("Error" in r["error"] for r in down), down

        receiver.start()                                  # back on the same port
        await drain(sender, clock, pool)
    finally:
        await sender.close()
    for cid in cups:
        assert received(receiver, cid) == owed[cid]       # each once, in the log's order
    sequences = [e["sequence"] for e in receiver.fresh() if e["championship_id"] == cups[0]]
    assert sequences == sorted(sequences)
    again = [e for e in receiver.entries() if e["status"] == 200 and not e["fresh"]]
    assert again, "the delivery handled at the crash came again (at least once) and was dropped by its id"
    assert {e["id"] for e in again} <= {e["id"] for e in receiver.fresh()}
    assert not [e for e in receiver.entries() if "refused" in e], "every signature verified"
    assert await pool.fetchval("SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'") == sum(
        map(len, owed.values()))


async def test_a_receiver_that_always_fails_is_retried_on_schedule_then_disabled_and_loses_nothing(
        pool, receiver, clock):
    kinds = ("match.ended", "championship.finished")
    endpoint_id = await endpoint_for(pool, receiver, kinds)
    cid, _ = await knock_out(pool, 4)
    await queue(pool)
    owed = await expected(pool, cid, kinds)
    retry = dict(base=2.0, factor=3.0, cap=50.0, jitter=0.1, disable_after=5)
    sender = sender_for(pool, clock, **retry)
    schedule = Retry(**retry)
    receiver.start("--fail")
    try:
        for n in range(1, 6):
            assert await sender.run_once() == 1, f"attempt {n}"
            head = await pool.fetchrow("SELECT * FROM webhook_deliveries WHERE attempts > 0")
            assert head["attempts"] == n and head["last_status_code"] == 500 and head["status"] == "pending"
            if n == 5:
                break
            wait = head["next_attempt_at"].timestamp() - clock.now
            nominal = schedule.nominal(n)                 # 2, 6, 18, 50 (capped) seconds
            assert nominal * 0.9 - 1e-3 <= wait <= nominal * 1.1 + 1e-3, (n, wait)
            clock.now = head["next_attempt_at"].timestamp() - 0.01
            assert await sender.run_once() == 0, "not before its time"
            clock.now += 0.01
        assert [schedule.nominal(n) for n in range(1, 5)] == [2, 6, 18, 50]
        gone = await endpoints.get(pool, "organiser", endpoint_id)
        assert not gone.enabled and gone.failures == 5
        assert "5 failed attempts in a row" in gone.disabled_reason and "500" in gone.disabled_reason
        clock.now += 10 ** 6
        assert await sender.run_once() == 0, "a disabled endpoint is sent nothing"
        assert await pending(pool) == len(owed), "nothing queued for it is lost"
        assert len(receiver.entries()) == 5 and not receiver.fresh()

        receiver.kill()
        receiver.start()                                  # mended
        back = await endpoints.enable(pool, "organiser", endpoint_id)
        assert back.enabled and back.failures == 0 and back.pending == len(owed)
        await drain(sender, clock, pool)
    finally:
        await sender.close()
    assert received(receiver, cid) == owed
    log = await endpoints.delivery(pool, "organiser", endpoint_id, head["delivery_id"])
    assert [a.status_code for a in log.log] == [500] * 5 + [200] and log.status == "delivered"


async def test_the_outbox_rebuilt_from_zero_queues_nothing_twice_and_nothing_older_than_an_endpoint(
        pool, receiver, clock):
    first, _ = await knock_out(pool, 4)
    await endpoint_for(pool, receiver)                    # after the first championship: owed none of it
    second, _ = await knock_out(pool, 8)
    await queue(pool)
    before = await pool.fetch("SELECT endpoint_id, event_id, payload FROM webhook_deliveries ORDER BY position")
    assert {str(r["event_id"]) for r in before} == {i for i, _ in await expected(pool, second)}
    await rebuild_projection(pool, webhooks_read_model())
    after = await pool.fetch("SELECT endpoint_id, event_id, payload FROM webhook_deliveries ORDER BY position")
    assert after == before


async def test_a_target_no_longer_allowed_is_not_reached(pool, receiver, clock, monkeypatch):
    endpoint_id = await endpoint_for(pool, receiver, ("championship.finished",))
    await knock_out(pool, 4)
    await queue(pool)
    receiver.start()
    monkeypatch.delenv("BALOOT_WEBHOOK_ALLOW")            # the operator took loopback off the allow-list
    sender = sender_for(pool, clock)
    try:
        assert await sender.run_once() == 1
    finally:
        await sender.close()
    (d,) = (await endpoints.deliveries(pool, "organiser", endpoint_id, None, 10))
    assert d.status == "pending" and d.last_status_code is None
    assert "target refused" in d.last_error and "loopback" in d.last_error
    assert receiver.entries() == []


async def test_a_forged_altered_or_replayed_delivery_is_refused_by_the_documented_code(receiver):
    receive, refused = documented_receive()
    secret = new_secret()
    body = '{"type":"match.ended","timestamp":"2026-12-02T18:00:00+00:00","data":{"championship_id":"c"}}'
    headers = sign(secret, "0d9c3f7e-1", body)
    seen: set[str] = set()
    assert receive(secret, body.encode(), headers, seen)["type"] == "match.ended"
    assert receive(secret, body.encode(), headers, seen) is None           # replayed at once: dropped by its id
    with pytest.raises(refused):
        receive(secret, body.replace("match.ended", "championship.finished").encode(), headers, set())
    with pytest.raises(refused):                                         # signed with a key of the forger's
        receive(secret, body.encode(), sign(new_secret(), "0d9c3f7e-2", body), set())
    captured = sign(secret, "0d9c3f7e-3", body, at=datetime.now(timezone.utc) - timedelta(minutes=10))
    with pytest.raises(refused):                                         # a capture replayed ten minutes on
        receive(secret, body.encode(), captured, set())
    with pytest.raises(refused):
        receive(secret, body.encode(), {k: v for k, v in headers.items() if k != "webhook-signature"}, set())

    receiver.secret = secret                                             # and the receiver answers a forger 400
    receiver.start()
    async with httpx.AsyncClient() as client:
        r = await client.post(receiver.url, content=body, headers=sign(new_secret(), "0d9c3f7e-4", body))
    assert r.status_code == 400
    assert receiver.fresh() == [] and "No matching signature" in receiver.entries()[0]["refused"]
