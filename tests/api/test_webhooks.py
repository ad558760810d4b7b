"""Webhook endpoints over HTTP: an organiser registers one (its secret shown once), for his championship or all
of them; a private target is refused with a problem document and stores nothing; nobody else sees, changes or
registers for his championships. A championship run over the API sends each kind of event, the tables' own
included, signed and verified by a receiver on loopback, with names where ids would be, and no hidden card nor
free text written at a table."""

from __future__ import annotations

import random

import pytest

from services.webhooks.outbox import KINDS
from services.webhooks.sender import Retry, WebhookSender
from tests.api.conftest import new_user
from tests.api.test_championships import command, drawn, teams_of
from tests.api.test_tables import assert_problem
from tests.webhooks.conftest import Clock, drain, queue
from tests.webhooks.receiver import Receiver


@pytest.fixture
def receiver(tmp_path, monkeypatch):
    monkeypatch.setenv("BALOOT_WEBHOOK_ALLOW", "127.0.0.1/32")       # the operator allows the tests' receiver
    r = Receiver(tmp_path)
    try:
        yield r
    finally:
        r.kill()


async def test_an_organiser_registers_reads_and_removes_his_endpoints_and_nobody_else_can(api, pool, receiver):
    _, organiser = await new_user(api, "organiser")
    _, other = await new_user(api, "another organiser")
    cid = await drawn(api, organiser, await teams_of(api, 2))

    r = await api.post("/webhooks", json={"url": receiver.url, "championship_id": cid, "kinds": ["match.ended"],
                                          "description": "club bot"}, headers=organiser)
    assert r.status_code == 201, r.text
    created = r.json()
    endpoint = created["endpoint"]
    assert created["secret"].startswith("whsec_") and len(created["secret"]) > 40
    assert endpoint["kinds"] == ["match.ended"] and endpoint["enabled"] and endpoint["championship_id"] == cid
    listed = (await api.get("/webhooks", headers=organiser)).json()
    assert [e["endpoint_id"] for e in listed] == [endpoint["endpoint_id"]]
    assert created["secret"] not in (await api.get("/webhooks", headers=organiser)).text     # shown once

    eid = endpoint["endpoint_id"]
    stored = await pool.fetchval("SELECT count(*) FROM webhook_endpoints")
    assert_problem(await api.get(f"/webhooks/{eid}", headers=other), 404, "unknown_webhook")
    assert_problem(await api.delete(f"/webhooks/{eid}", headers=other), 404, "unknown_webhook")
    assert_problem(await api.get(f"/webhooks/{eid}/deliveries", headers=other), 404, "unknown_webhook")
    assert (await api.get("/webhooks", headers=other)).json() == []
    assert_problem(await api.post("/webhooks", json={"url": receiver.url, "championship_id": cid}, headers=other),
                   403, "not_organiser")
    assert_problem(await api.post("/webhooks", json={"url": receiver.url, "championship_id": "nope"},
                                  headers=organiser), 404)
    assert_problem(await api.post("/webhooks", json={"url": receiver.url, "kinds": ["card.played"]},
                                  headers=organiser), 400, "invalid_field", field="kinds[0]")
    assert_problem(await api.post("/webhooks", json={"url": receiver.url}), 401)
    assert await pool.fetchval("SELECT count(*) FROM webhook_endpoints") == stored

    r = await api.delete(f"/webhooks/{eid}", headers=organiser)
    assert r.status_code == 204
    assert (await api.get("/webhooks", headers=organiser)).json() == []


@pytest.mark.parametrize("url, kind", [
    ("http://127.0.0.1:8080/hook", "loopback"), ("http://localhost/hook", "loopback"),
    ("http://10.1.2.3/hook", "private"), ("http://169.254.169.254/latest/meta-data", "link-local"),
    ("http://[::1]/hook", "loopback"), ("http://[::ffff:192.168.0.1]/hook", "private"),
])
async def test_a_private_target_is_refused_with_a_problem_document_and_stores_nothing(api, pool, url, kind):
    _, organiser = await new_user(api, "organiser")
    body = assert_problem(await api.post("/webhooks", json={"url": url}, headers=organiser), 422,
                          "webhook_target_refused", field="url")
    assert f"a {kind} address" in body["detail"] and "BALOOT_WEBHOOK_ALLOW" in body["detail"]
    assert await pool.fetchval("SELECT count(*) FROM webhook_endpoints") == 0


@pytest.mark.parametrize("url, why", [("ftp://example.org/x", "http or https"),
                                      ("https://user:pw@example.org/x", "user name or password"),
                                      ("https:///x", "no host")])
async def test_a_url_that_is_no_webhook_target_is_refused(api, url, why):
    _, organiser = await new_user(api, "organiser")
    body = assert_problem(await api.post("/webhooks", json={"url": url}, headers=organiser), 422,
                          "webhook_target_refused", field="url")
    assert why in body["detail"]


async def test_a_championship_run_over_the_api_sends_every_kind_signed_named_and_without_hidden_things(
        api, pool, receiver):
    organiser_id, organiser = await new_user(api, "organiser")
    r = await api.post("/webhooks", json={"url": receiver.url}, headers=organiser)    # all his championships
    assert r.status_code == 201, r.text
    receiver.secret = r.json()["secret"]
    eid = r.json()["endpoint"]["endpoint_id"]
    teams = await teams_of(api, 2)
    cid = await drawn(api, organiser, teams, format="single_elimination")
    started = await command(api, cid, "rounds/1/start", organiser, "round-1")
    (table,) = started["tables"]
    tid = table["table_id"]
    r = await api.post(f"/tables/{tid}/calls", json={"command_id": "call-1", "reason": "misclick",
                                                     "note": "I hold the ace of spades, my partner misclicked"},
                       headers=teams[0][0][1])
    assert r.status_code == 201, r.text
    seat = r.json()["view"]["seat"]
    r = await api.post(f"/tables/{tid}/rulings", json={"command_id": "rule-1", "call": 1, "ruling": {
        "type": "reject", "reason": "the seven of hearts was played on purpose"}},
                       headers=organiser)
    assert r.status_code in (200, 201), r.text
    (match,) = [m for m in (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
                if m["note"] == ""]
    await command(api, cid, f"matches/{match['match_id']}/forfeit", organiser, "forfeit", absent="T2")
    summary = (await api.get(f"/championships/{cid}", headers=organiser)).json()
    if summary["status"] != "finished":
        await command(api, cid, "finish", organiser, "finish")

    await queue(pool)
    clock = Clock()
    sender = WebhookSender(pool, Retry(base=1.0), clock=clock, rng=random.Random(1))
    receiver.start()
    try:
        await drain(sender, clock, pool)
    finally:
        await sender.close()
    got = receiver.fresh()
    assert [e["type"] for e in got] == ["registration.closed", "draw.made", "round.started", "match.started",
                                        "referee.called", "referee.ruled", "match.ended", "championship.finished"]
    assert set(KINDS) == {e["type"] for e in got}
    data = {e["type"]: e["payload"]["data"] for e in got}
    assert all(d["championship_id"] == cid and d["championship_name"] == "Riyadh Cup" for d in data.values())
    names = {"T1": "team 0 player 0 & team 0 player 1", "T2": "team 1 player 0 & team 1 player 1"}
    assert data["draw.made"]["commitment"] == summary["draw_commitment"]
    assert data["draw.made"]["seed"] == summary["draw_seed"] and sorted(data["draw.made"]["order"]) == ["T1", "T2"]
    started_match = data["match.started"]
    assert started_match["table_id"] == tid and started_match["match_id"] == match["match_id"]
    assert {started_match["team_a"]["name"], started_match["team_b"]["name"]} == set(names.values())
    assert data["referee.called"] == {**{k: data["referee.called"][k] for k in ("championship_id", "championship_name",
                                                                              "sequence")},
                                      "table_id": tid, "match_id": match["match_id"], "call": 1, "seat": seat,
                                      "reason": "misclick"}
    assert data["referee.ruled"]["ruling"] == "reject" and data["referee.ruled"]["call"] == 1
    ended = data["match.ended"]
    assert ended["outcome"] == "forfeit" and ended["winner"] == {"team_id": "T1", "name": names["T1"]}
    assert ended["absent"] == ["T2"] and ended["score"] is None
    assert data["championship.finished"]["champion"]["team_id"] == "T1"
    sequences = [e["sequence"] for e in got]
    assert sequences == sorted(sequences)
    text = receiver.log.read_text()
    assert "ace of spades" not in text and "seven of hearts" not in text     # the table's free text stays there
    assert '"hand' not in text and '"cards' not in text

    log = (await api.get(f"/webhooks/{eid}/deliveries", headers=organiser)).json()
    assert [d["kind"] for d in log["deliveries"]] == [e["type"] for e in reversed(got)]
    assert all(d["status"] == "delivered" and d["attempts"] == 1 and d["last_status_code"] == 200
               for d in log["deliveries"])
    one = log["deliveries"][0]
    r = await api.post(f"/webhooks/{eid}/deliveries/{one['delivery_id']}/redeliver", headers=organiser)
    assert r.status_code == 200 and r.json()["status"] == "pending", r.text
    sender = WebhookSender(pool, Retry(base=1.0), clock=clock, rng=random.Random(1))
    try:
        await drain(sender, clock, pool)
    finally:
        await sender.close()
    again = (await api.get(f"/webhooks/{eid}/deliveries/{one['delivery_id']}", headers=organiser)).json()
    assert again["status"] == "delivered" and [a["status_code"] for a in again["log"]] == [200, 200]
    assert [e["id"] for e in receiver.entries()].count(one["event_id"]) == 2      # sent twice, handled once
    assert len(receiver.fresh()) == len(got)
    other_id, other = await new_user(api, "nosy")
    assert_problem(await api.post(f"/webhooks/{eid}/deliveries/{one['delivery_id']}/redeliver", headers=other),
                   404, "unknown_webhook")

    # A new secret is in force at once: the receiver that still holds the old one refuses what it signs.
    assert_problem(await api.post(f"/webhooks/{eid}/secret", headers=other), 404, "unknown_webhook")
    r = await api.post(f"/webhooks/{eid}/secret", headers=organiser)
    assert r.status_code == 200 and r.json()["secret"] not in (receiver.secret, None), r.text
    fresh_secret = r.json()["secret"]
    r = await api.post(f"/webhooks/{eid}/deliveries/{one['delivery_id']}/redeliver", headers=organiser)
    assert r.status_code == 200, r.text
    sender = WebhookSender(pool, Retry(base=1.0), clock=clock, rng=random.Random(1))
    try:
        await sender.run_once()
    finally:
        await sender.close()
    assert "No matching signature" in receiver.entries()[-1]["refused"]
    receiver.kill()
    receiver.secret = fresh_secret
    receiver.start()
    sender = WebhookSender(pool, Retry(base=1.0), clock=clock, rng=random.Random(1))
    try:
        await drain(sender, clock, pool)
    finally:
        await sender.close()
    assert receiver.entries()[-1]["status"] == 200 and "refused" not in receiver.entries()[-1]
