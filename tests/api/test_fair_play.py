"""Fair play under attack: each hole a hostile client found, tried again as that client would.

A spectator replaying someone's command id, a cheat reusing or guessing command ids, seats and teams taken
without consent, a seated referee, the broadcast delay skipped through the replay endpoints, the cards of a
live deal read from the database, loose validation.
"""

from __future__ import annotations

import asyncio
import json
import random

import msgspec

from domain.baloot.cards import card_name
from domain.baloot.shuffle import deck_from_seed, seed_commitment
from tests.api.conftest import new_user, open_table
from tests.api.test_tables import Ids, act, assert_problem, play_until, stream_version, view


async def test_a_spectator_replaying_the_tables_opening_command_id_gets_nothing(api, players, pool):
    tid = await open_table(api, players, hands_policy="always", delay_seconds=1800)
    _, spy = await new_user(api, "spectator")
    before = await stream_version(pool, tid)
    for command_id in ("open", "accept", "propose"):
        r = await act(api, tid, spy, {"type": "sawa"}, command_id)
        body = assert_problem(r, 403, "not_seated")
        assert "hands" not in r.text and "view" not in body
    assert await stream_version(pool, tid) == before
    # What the spectator may see instead: nothing yet, 600 s behind.
    seen = await view(api, tid, spy)
    assert seen["version"] == 0 and seen["deal"] is None


async def test_command_ids_belong_to_their_sender(api, players, pool):
    tid = await open_table(api, players)
    rng = random.Random(5)
    # Each client numbers its own commands cmd-1, cmd-2...: every action is stored, none "replayed".
    counters = [0, 0, 0, 0]
    for _ in range(8):
        v = await view(api, tid, players[0][1])
        turn = v["deal"]["turn"]
        mine = await view(api, tid, players[turn][1])
        counters[turn] += 1
        before = await stream_version(pool, tid)
        r = await act(api, tid, players[turn][1], rng.choice(mine["deal"]["legal_actions"]), f"cmd-{counters[turn]}")
        assert r.status_code == 200, r.text
        assert r.json()["replayed"] is False and await stream_version(pool, tid) > before
    # The same id again from the same player with another action is refused, and stores nothing.
    v = await view(api, tid, players[0][1])
    turn = v["deal"]["turn"]
    mine = await view(api, tid, players[turn][1])
    first = await act(api, tid, players[turn][1], mine["deal"]["legal_actions"][0], "mine")
    assert first.status_code == 200, first.text
    stored = await stream_version(pool, tid)
    other = {"type": "sawa"}                # never among the listed legal actions, so never the first one
    assert_problem(await act(api, tid, players[turn][1], other, "mine"), 409, "command_id_reused")
    assert await stream_version(pool, tid) == stored


async def test_a_table_seats_nobody_without_consent(api, players, pool):
    (alice, a), (bob, b), (carol, c), (dave, d) = players
    r = await api.post("/tables", json={"seats": [alice, bob, carol, dave]}, headers=a)
    assert r.status_code == 201, r.text
    tid, body = r.json()["table_id"], r.json()
    assert body["status"] == "invited" and body["waiting"] == [bob, carol, dave]
    # Nothing is dealt until everyone accepts; nobody can act.
    assert_problem(await act(api, tid, b, {"type": "bid", "bid": "pass"}, "x"), 409, "table_not_open")
    _, stranger = await new_user(api, "stranger")
    assert_problem(await api.post(f"/tables/{tid}/accept", headers=stranger), 403, "not_invited")
    for h in (b, c):
        assert (await api.post(f"/tables/{tid}/accept", headers=h)).json()["status"] == "invited"
    last = await api.post(f"/tables/{tid}/accept", headers=d)
    assert last.json()["status"] == "live" and last.json()["waiting"] == []
    assert (await view(api, tid, a))["deal"]["hand"]

    # A decline cancels a proposed table; one person at two seats is refused.
    r = await api.post("/tables", json={"seats": [alice, bob, carol, dave]}, headers=a)
    other = r.json()["table_id"]
    assert (await api.post(f"/tables/{other}/decline", headers=c)).json()["status"] == "cancelled"
    assert_problem(await api.post(f"/tables/{other}/accept", headers=d), 409, "table_cancelled")
    assert await pool.fetchval("SELECT status FROM tables_index WHERE table_id = $1", other) == "cancelled"
    before = await pool.fetchval("SELECT count(*) FROM events")
    assert_problem(await api.post("/tables", json={"seats": [alice, bob, alice, dave]}, headers=a), 422,
                   "seated_twice", field="seats")
    assert await pool.fetchval("SELECT count(*) FROM events") == before


async def test_a_seated_creator_is_not_the_referee_of_his_table(api, players, referee):
    tid = await open_table(api, players)                         # created by the player at seat 0
    annul = {"command_id": "a", "ruling": {"type": "annul_deal", "reason": "I saw my cards", "replay": True}}
    assert_problem(await api.post(f"/tables/{tid}/rulings", json=annul, headers=players[0][1]), 403, "not_referee")
    # A referee who does not play ends a game, with or without a winner, for a reason.
    refereed = await open_table(api, players, referee)
    end = {"command_id": "end", "ruling": {"type": "end_game", "reason": "players left", "winner": 1}}
    r = await api.post(f"/tables/{refereed}/rulings", json=end, headers=referee)
    assert r.status_code == 200, r.text
    assert r.json()["events"][0] == "game_ended" and "seed_revealed" in r.json()["events"]
    final = await view(api, refereed, players[1][1])
    assert final["phase"] == "ended" and final["winner"] == 1 and final["end_reason"] == "referee"


async def test_a_live_deals_cards_are_not_in_the_database(api, players, pool):
    tid = await open_table(api, players)
    rows = await pool.fetch("SELECT event_type, data::text AS data FROM events WHERE stream_id = $1", f"table-{tid}")
    started = next(json.loads(r["data"]) for r in rows if r["event_type"] == "deal_started")
    assert started.get("deck") is None and started["commitment"]
    hands = [set((await view(api, tid, h))["deal"]["hand"]) for _, h in players]
    everything = " ".join(r["data"] for r in rows)
    for hand in hands:
        assert not any(f'"{card}"' in everything for card in hand)
    # No secret in the database either: whoever reads it cannot derive the seeds.
    tables = {r[0] for r in await pool.fetch("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")}
    if "server_secret" in tables:
        assert await pool.fetchval("SELECT count(*) FROM server_secret") == 0
    # Once the deal ends, its seed is in the log and gives exactly the cards that were dealt.
    await play_until(api, tid, players, random.Random(2), Ids(), lambda v: v["deal_no"] > 1)
    rows = await pool.fetch("SELECT event_type, data FROM events WHERE stream_id = $1 ORDER BY version",
                            f"table-{tid}")
    seed = next(json.loads(r["data"])["seed"] for r in rows if r["event_type"] == "seed_revealed")
    assert seed_commitment(seed) == started["commitment"]
    record = (await api.get(f"/tables/{tid}/deals/1/record", headers=players[0][1])).json()
    assert record["deck"] == [card_name(c) for c in deck_from_seed(seed)]


async def test_spectators_see_nothing_before_the_delay_through_any_endpoint(api, players, pool, referee):
    tid = await open_table(api, players, referee, hands_policy="always", delay_seconds=1800)
    await play_until(api, tid, players, random.Random(8), Ids(), lambda v: v["deal_no"] > 1)
    _, spy = await new_user(api, "spectator")
    assert (await api.get(f"/tables/{tid}/deals", headers=spy)).json() == []
    assert_problem(await api.get(f"/tables/{tid}/deals/1/record", headers=spy), 404, "unknown_deal")
    assert_problem(await api.get(f"/tables/{tid}/deals/1/audit", headers=spy), 404, "unknown_deal")
    assert_problem(await api.get(f"/tables/{tid}/state", params={"at": 1}, headers=spy), 404, "not_yet_visible")
    # The game ends: the delay still holds.
    end = {"command_id": "end", "ruling": {"type": "end_game", "reason": "closing time", "winner": 0}}
    assert (await api.post(f"/tables/{tid}/rulings", json=end, headers=referee)).status_code == 200
    assert_problem(await api.get(f"/tables/{tid}/state", params={"at": 1}, headers=spy), 404, "not_yet_visible")
    assert (await view(api, tid, spy))["version"] == 0
    # The table's players see their finished deal at once.
    assert (await api.get(f"/tables/{tid}/deals/1/record", headers=players[0][1])).status_code == 200


async def test_loose_values_are_refused(api, players, pool):
    tid = await open_table(api, players)
    v = await view(api, tid, players[0][1])
    turn = v["deal"]["turn"]
    before = await stream_version(pool, tid)
    r = await act(api, tid, players[turn][1], {"type": "bid", "bid": "pass"}, "s", expected_version=str(before))
    assert_problem(r, 400, "invalid_field", field="expected_version")
    for target in (-1, 0, 2**64):
        r = await api.post("/tables", json={"seats": [p for p, _ in players], "switches": {"target": target}},
                           headers=players[0][1])
        assert_problem(r, 400, "invalid_field", field="switches")
    for seconds in (1e-300, 0.5):
        r = await api.post("/tables", json={"seats": [p for p, _ in players], "turn_seconds": seconds},
                           headers=players[0][1])
        assert_problem(r, 400, field="turn_seconds")
    assert await stream_version(pool, tid) == before


async def test_nobody_is_registered_in_a_team_without_consent(api):
    from tests.api.test_championships import create
    _, organiser = await new_user(api, "organiser")
    cid = await create(api, organiser)
    (attacker, a), (victim, v), (friend, f) = [await new_user(api, n) for n in ("attacker", "victim", "friend")]
    r = await api.post(f"/championships/{cid}/teams", headers=a,
                       json={"command_id": "grab", "team_id": "GRAB", "players": [attacker, victim]})
    assert r.status_code == 201 and r.json()["status"] == "invited" and r.json()["waiting"] == [victim]
    summary = (await api.get(f"/championships/{cid}", headers=organiser)).json()
    assert summary["teams"] == []
    # The victim registers with his own partner: nothing holds him.
    r = await api.post(f"/championships/{cid}/teams", headers=v,
                       json={"command_id": "mine", "team_id": "MINE", "players": [victim, friend]})
    assert r.json()["status"] == "invited"
    r = await api.post(f"/championships/{cid}/teams/MINE/accept", headers=f)
    assert r.status_code == 200 and r.json()["status"] == "registered"
    teams = (await api.get(f"/championships/{cid}", headers=organiser)).json()["teams"]
    assert [t["team_id"] for t in teams] == ["MINE"]
    # The attacker's proposal can no longer register; declining it is the victim's to do.
    assert (await api.post(f"/championships/{cid}/teams/GRAB/decline", headers=v)).json()["status"] == "declined"
    # Someone else's championship command id is his own: the same id from another user is another command.
    other, o = await new_user(api, "other")
    r = await api.post(f"/championships/{cid}/teams", headers=o,
                       json={"command_id": "mine", "team_id": "OTHER", "players": [other, attacker]})
    assert r.status_code == 201 and r.json()["replayed"] is False


async def test_concurrent_check_ins_store_one_and_say_so(api):
    from tests.api.test_championships import command, create, register, teams_of
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 2)
    cid = await create(api, organiser, check_in_seconds=600)
    for k, team in enumerate(teams):
        assert (await register(api, cid, team, f"T{k + 1}")).status_code == 201
    await command(api, cid, "registration/close", organiser, "close")
    await command(api, cid, "draw", organiser, "draw")
    await command(api, cid, "rounds/1/start", organiser, "r1")
    matches = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    match_id = matches[0]["match_id"]
    player = teams[0][0]
    answers = await asyncio.gather(*[
        api.post(f"/championships/{cid}/matches/{match_id}/check-in", json={"command_id": f"c{i}"},
                 headers=player[1]) for i in range(20)])
    assert [r.status_code for r in answers] == [200] * 20
    assert sum(not r.json()["replayed"] for r in answers) == 1


async def test_each_finished_deal_comes_with_a_signed_receipt_of_the_log(api, players, pool):
    from services.anchor import Receipt, verify_log, verify_receipt

    tid = await open_table(api, players)
    await play_until(api, tid, players, random.Random(4), Ids(), lambda v: v["deal_no"] > 1)
    key = (await api.get("/log/key")).json()["public_key"]
    record = (await api.get(f"/tables/{tid}/deals/1/record", headers=players[0][1])).json()
    receipt = msgspec.convert(record["receipt"], Receipt)
    assert receipt.kind == "deal" and receipt.ref == "1" and verify_receipt(key, receipt)
    assert receipt.hash == (await pool.fetchval("SELECT encode(hash, 'hex') FROM events WHERE stream_id = $1 "
                                                "AND version = $2", f"table-{tid}", receipt.version))
    listed = (await api.get(f"/tables/{tid}/receipts", headers=players[2][1])).json()
    assert [r["ref"] for r in listed] == ["1"]
    assert (await verify_log(pool, key)).findings == []


async def test_a_table_stored_before_the_cards_left_the_log_still_plays(api, players, pool):
    """Streams written by the previous version: ``deal_started`` v1 carried the deck; such tables load and play."""
    tid = await open_table(api, players)
    stream = f"table-{tid}"
    row = await pool.fetchrow("SELECT version, data FROM events WHERE stream_id = $1 AND event_type = 'deal_started'",
                              stream)
    hands = [(await view(api, tid, h))["deal"]["hand"] for _, h in players]
    # Rewrite the stored event as the old version wrote it (deck included, schema version 1), behind the
    # triggers; a fresh process (a new app) then reads it through the upcaster.
    from services.tables import CODEC
    app = api.app
    deck = app.state.platform.feeds.get(tid).game.deal.deck
    data = {**json.loads(row["data"]), "deck": list(deck)}
    async with pool.acquire() as conn:
        await conn.execute("SET session_replication_role = replica")
        await conn.execute("UPDATE events SET data = $1::jsonb, schema_version = 1 "
                           "WHERE stream_id = $2 AND version = $3",
                           json.dumps(data), stream, row["version"])
        await conn.execute("SET session_replication_role = DEFAULT")
    stored = await pool.fetchrow("SELECT * FROM events WHERE stream_id = $1 AND version = $2", stream, row["version"])
    assert stored["schema_version"] == 1
    app.state.platform.feeds.clear()
    assert [(await view(api, tid, h))["deal"]["hand"] for _, h in players] == hands
    await play_until(api, tid, players, random.Random(6), Ids(), lambda v: v["deal_no"] > 1)
    assert CODEC.classes["deal_started"].schema_version == 2
