"""Fair play under attack, round 3: what a hostile client still got through, tried again as that client
would. Each test names the finding it closes (the security review's numbering)."""

from __future__ import annotations

import json

import asyncpg

from services.anchor import publish_checkpoint
from services.anchor.keys import default_signer
from tests.anchor.test_tamper import rehash, settled, superuser
from tests.api.conftest import new_user, open_table
from tests.api.test_tables import assert_problem, finished_deals, stream_version, view


# ---- 1. an invitee sees what he agrees to; a table cannot show live hands to a spectator at once

async def test_a_table_showing_every_hand_during_play_shows_it_half_an_hour_late(api, players, pool):
    events = await pool.fetchval("SELECT count(*) FROM events")
    for delay in (0, 600, 1799):
        r = await api.post("/tables", headers=players[0][1], json={
            "seats": [uid for uid, _ in players], "hands_policy": "always", "delay_seconds": delay})
        body = assert_problem(r, 400, "invalid_field", field="delay_seconds")
        assert "1800 s late" in body["detail"]
    assert await pool.fetchval("SELECT count(*) FROM events") == events        # nothing proposed
    tid = await open_table(api, players, hands_policy="always", delay_seconds=1800)
    # The proposer's second account, watching: nothing of the live game (it is 30 minutes behind).
    _, second_account = await new_user(api, "the proposer again")
    seen = await view(api, tid, second_account)
    assert seen["seat"] is None and seen["deal"] is None and seen["version"] < await stream_version(pool, tid)


async def test_an_invitee_sees_the_tables_terms_before_he_accepts(api, players):
    r = await api.post("/tables", headers=players[0][1], json={
        "seats": [uid for uid, _ in players], "hands_policy": "never", "turn_seconds": 30, "on_timeout": "bot",
        "timeout_bot_level": "hard", "max_timeouts": 4, "profile": "saudi", "switches": {"kawesh": False}})
    assert r.status_code == 201, r.text
    tid = r.json()["table_id"]
    invitation = await view(api, tid, players[2][1])
    assert invitation["status"] == "invited" and players[2][0] in invitation["waiting"]
    assert invitation["terms"] == {
        "game": "baloot", "profile": "saudi", "switches": {"kawesh": False}, "mode": "strict",
        "hands_policy": "never", "delay_seconds": 0.0, "turn_seconds": 30.0, "on_timeout": "bot",
        "timeout_bot_level": "hard", "max_timeouts": 4, "bot_pace_seconds": 1.0, "deals": None,
        "bots": [None, None, None, None],
        "championship_id": None, "match_id": None, "referee": None}     # the proposer sits: no referee of its own
    for uid, headers in players[1:]:
        assert (await api.post(f"/tables/{tid}/accept", headers=headers)).status_code == 200
    playing = await view(api, tid, players[1][1])
    assert playing["status"] == "live" and playing["terms"] == invitation["terms"]   # the same, every view


# ---- 9. bot accounts are the server's: nobody signs one up, nor holds the token of the bot he seats

async def test_nobody_signs_up_a_bot_and_a_tables_bots_are_the_servers(api, pool):
    users = await pool.fetchval("SELECT count(*) FROM users")
    body = assert_problem(await api.post("/users", json={"name": "my bot", "kind": "bot"}), 400, "invalid_field",
                          field="kind")
    assert "the server's" in body["detail"]
    assert await pool.fetchval("SELECT count(*) FROM users") == users
    me, headers = await new_user(api, "cheat")
    r = await api.post("/tables", headers=headers, json={"seats": [me, "bot", "bot", "bot"], "bot_level": "hard"})
    assert r.status_code == 201 and r.json()["status"] == "live", r.text         # bots accept by themselves
    seats = (await view(api, r.json()["table_id"], headers))["seats"]
    assert seats == [me, "bot-hard", "bot-hard", "bot-hard"]
    assert await pool.fetchval("SELECT count(*) FROM tokens WHERE user_id = 'bot-hard'") == 0   # no token at all
    # An organiser's team of bots: accounts of their own (a player is registered once), no token either.
    r = await api.post("/championships", headers=headers, json={"command_id": "c", "name": "Bots cup"})
    cid = r.json()["championship_id"]
    r = await api.post(f"/championships/{cid}/teams", headers=headers,
                       json={"command_id": "t", "team_id": "T", "players": ["bot", "bot"]})
    assert r.status_code == 201, r.text
    team = next(t for t in (await api.get(f"/championships/{cid}", headers=headers)).json()["teams"])
    assert len(set(team["players"])) == 2 and all(p.startswith("bot-") for p in team["players"])
    assert await pool.fetchval("SELECT count(*) FROM tokens WHERE user_id = ANY($1)", team["players"]) == 0
    # A player (not the organiser) may not enter bots.
    _, player = await new_user(api, "player")
    assert_problem(await api.post(f"/championships/{cid}/teams", headers=player, json={
        "command_id": "u", "players": [me, "bot"]}), 403)


# ---- 13 and 17. inputs that made a 5xx, or were taken when they should not have been

async def test_days_out_of_the_calendar_and_unknown_profiles_are_clear_refusals(api, players):
    h = players[0][1]
    for path in ("/daily/9999-12-31/saudi", "/daily/9999-12-31/saudi/leaderboard",
                 "/daily/9999-12-31/saudi/boards/1/field", "/daily/0001-01-01/saudi/entry"):
        assert_problem(await api.get(path, headers=h), 400, "invalid_field", field="day")
    assert_problem(await api.get("/daily/rolling/saudi", params={"day": "0001-01-01"}, headers=h), 400,
                   "invalid_field", field="day")
    assert_problem(await api.get("/daily/rolling/no-such-profile", headers=h), 404, "unknown_profile")


async def test_a_championship_refuses_a_time_without_zone_and_a_duplicate_dice_game(api, players, pool):
    h = players[0][1]
    before = await pool.fetchval("SELECT count(*) FROM events")
    body = assert_problem(await api.post("/championships", headers=h, json={
        "command_id": "c1", "name": "Cup", "schedule": [{"round": 1, "starts_at": "2026-12-01T18:00:00"}]}),
        400, "invalid_field", field="schedule")
    assert "time zone" in body["detail"]
    assert_problem(await api.post("/championships", headers=h, json={
        "command_id": "c2", "name": "Dice", "format": "duplicate", "game": "balut"}), 400, "invalid_field",
        field="format")
    assert await pool.fetchval("SELECT count(*) FROM events") == before


async def test_two_openers_of_one_table_at_once_open_it_once(pool):
    import asyncio

    from services.platform import Platform
    from services.tables import TableOpened

    tables = (await Platform.on(pool, secret=b"s")).tables
    openings = [TableOpened(table_id="together", seats=tuple("abcd"), opened_by=who) for who in ("a", "b", "c")]
    opened = await asyncio.gather(*(tables.open_table(o) for o in openings))     # no ConcurrencyError
    assert len({t.version for t in opened}) == 1 and opened[0].opened.table_id == "together"
    assert await pool.fetchval("SELECT count(*) FROM events WHERE stream_id = 'table-together' "
                               "AND event_type = 'table_opened'") == 1


async def test_two_first_players_of_a_day_open_its_set_once(pool):
    import asyncio

    from services.platform import Platform

    daily = (await Platform.on(pool, secret=b"s")).daily
    sets = await asyncio.gather(*(daily.board_set(daily.today(), "saudi") for _ in range(3)))
    assert len({s.commitment for s in sets}) == 1
    assert await pool.fetchval("SELECT count(*) FROM events WHERE event_type = 'board_set_opened'") == 1


# ---- 5. X-Forwarded-For is believed from the configured proxies only

async def test_a_client_cannot_choose_the_address_its_sign_ups_count_against(database_url, db_schema, monkeypatch):
    import asyncio
    import socket

    import httpx
    import uvicorn

    from services.api.app import create_app
    from services.cli.serve import proxy_options
    from tests.api.conftest import schema_url

    async def sign_ups(trusted: str) -> list[int]:
        monkeypatch.setenv("BALOOT_TRUSTED_PROXIES", trusted)
        app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 10_000),
                         signup_limit=("minute", 3))
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning", **proxy_options()))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{sock.getsockname()[1]}", timeout=30) as c:
                return [(await c.post("/users", json={"name": f"u{i} via {trusted or 'none'}"},   # names are one each
                                      headers={"X-Forwarded-For": f"203.0.113.{i}"})).status_code for i in range(5)]
        finally:
            server.should_exit = True
            await task
            sock.close()

    assert await sign_ups("") == [201, 201, 201, 429, 429]          # the made-up addresses are not believed
    assert await sign_ups("127.0.0.1") == [201] * 5                 # behind a trusted proxy they are its word


# ---- 7. a live stream ends with its token: revoked (from any process), or expired

async def test_a_live_stream_ends_when_its_token_is_revoked_or_expires(database_url, db_schema, pool):
    import asyncio

    import httpx

    from services.api.app import create_app
    from services.tokens import issue_token
    from tests.api.conftest import schema_url
    from tests.api.test_tables import follow, served

    url = schema_url(database_url, db_schema)
    here, there = create_app(url, rate_limit=("second", 10_000)), create_app(url, rate_limit=("second", 10_000))
    async with served(here) as base, served(there) as base_there, \
            httpx.AsyncClient(base_url=base, timeout=30) as client, \
            httpx.AsyncClient(base_url=base_there, timeout=30) as other:
        players = [await new_user(client, f"p{i}") for i in range(4)]
        tid = await open_table(client, players)
        # Revoked through another API process: this one hears of it on the LISTEN path and ends the stream.
        seen: list = []
        got = asyncio.Event()
        stream = asyncio.create_task(follow(base, tid, players[0][1], seen, first=got))
        await asyncio.wait_for(got.wait(), 20)
        assert seen[-1][1] == "view" and seen[-1][2]["deal"]["hand"]          # his own hand, live
        assert (await other.delete("/tokens/current", headers=players[0][1])).status_code == 204
        assert await asyncio.wait_for(stream, 20) == "closed"
        assert seen[-1][1:] == ("error", {"rule": "bad_token", "detail": "token revoked"})
        # A token that expires while its stream is open: the stream ends at the expiry.
        token, _ = await issue_token(pool, players[1][0], days=3 / 86400)
        seen = []
        ended = await asyncio.wait_for(follow(base, tid, {"Authorization": f"Bearer {token}"}, seen), 30)
        assert ended == "closed" and seen[-1][1:] == ("error", {"rule": "bad_token", "detail": "token expired"})


# ---- 14. security headers on every response

async def test_every_response_carries_the_security_headers(api, players):
    from services.api.guards import SECURITY_HEADERS

    responses = [await api.get("/health"), await api.get("/watch/"), await api.get("/watch/js/table.js"),
                 await api.get("/tables/nowhere/view", headers=players[0][1]),             # a problem document
                 await api.get("/me"),                                                     # 401
                 await api.get("/tables/x%00/view", headers=players[0][1])]               # refused by a guard
    assert [r.status_code for r in responses] == [200, 200, 200, 404, 401, 400]
    for r in responses:
        for name, value in SECURITY_HEADERS:
            assert r.headers[name.decode()] == value.decode(), (r.url, name)
    assert "script-src 'self'" in responses[1].headers["content-security-policy"]


# ---- 11. the API audit checks the signed receipt and the signed checkpoint, as `baloot verify` does

async def test_the_audit_of_a_deal_names_a_rewrite_whose_hashes_were_recomputed(api, players, pool, database_url,
                                                                                 db_schema):
    tid = await finished_deals(api, players)
    h = players[0][1]
    await settled(pool)
    assert await publish_checkpoint(pool, default_signer()) is not None
    audit = (await api.get(f"/tables/{tid}/deals/1/audit", headers=h)).json()
    assert audit["chain_intact"] is True and audit["anchor"]["ok"] is True, audit["anchor"]
    assert (audit["anchor"]["receipt"], audit["anchor"]["checkpoint"]) == ("matches", "included")
    assert "inclusion proof verifies" in audit["anchor"]["checkpoint_detail"]

    deals = (await api.get(f"/tables/{tid}/deals", headers=h)).json()
    target = deals[0]["first_version"] + 1                  # the first bid of deal 1
    conn = await superuser(lambda: asyncpg.connect(database_url, server_settings={"search_path": db_schema}))
    try:
        data = json.loads(await conn.fetchval("SELECT data FROM events WHERE stream_id = $1 AND version = $2",
                                              f"table-{tid}", target))
        data["bid"] = "pass" if data["bid"] != "pass" else "sun"
        await conn.execute("UPDATE events SET data = $3::jsonb WHERE stream_id = $1 AND version = $2",
                           f"table-{tid}", target, json.dumps(data))
        await rehash(conn, f"table-{tid}", target)         # every hash after it recomputed, as a forger would
    finally:
        await conn.close()
    audit = (await api.get(f"/tables/{tid}/deals/1/audit", headers=h)).json()
    assert audit["chain_intact"] is True                    # the chain alone cannot tell
    assert audit["anchor"]["ok"] is False
    assert (audit["anchor"]["receipt"], audit["anchor"]["checkpoint"]) == ("rewritten", "rewritten")
    assert "rewritten after it was signed" in audit["anchor"]["receipt_detail"]
    assert "NOT in signed checkpoint #1" in audit["anchor"]["checkpoint_detail"]
