"""Fair play under attack, round 3: what a hostile client still got through, tried again as that client
would. Each test names the finding it closes (the security review's numbering)."""

from __future__ import annotations

from tests.api.conftest import new_user, open_table
from tests.api.test_tables import assert_problem, stream_version, view


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
        "timeout_bot_level": "hard", "max_timeouts": 4, "deals": None, "bots": [None, None, None, None],
        "championship_id": None, "match_id": None}
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
