"""The organiser's monitor (GET /championships/{id}/monitor): every match of the round with its state, a count
per state, what needs the organiser first (stalled tables, no-shows at the window's end, a round ready),
filters, search and pages; for organisers and referees only."""

from __future__ import annotations

import datetime as dt

from services.championships.monitor import monitor
from services.platform import Platform
from tests.api.conftest import new_user
from tests.api.test_championships import command, create
from tests.api.test_team_import import people, post_file

TEAMS = """team,player_1,player_2
Riyadh Falcons,saad,noura
Jeddah Pearls,fahad,ahmad
Dammam Waves,badr,khalid
Abha Eagles,omar,yousef
"""


async def started(api, pool, organiser, **settings) -> tuple[str, dict, dict]:
    """Four imported teams, the draw made and round 1 started; (championship, login -> user, monitor)."""
    cid = await create(api, organiser, **settings)
    ids = await people(pool, ["saad", "noura", "fahad", "ahmad", "badr", "khalid", "omar", "yousef"])
    assert (await post_file(api, cid, organiser, TEAMS)).status_code == 201
    for step in ("registration/close", "draw", "rounds/1/start"):
        await command(api, cid, step, organiser, step.replace("/", "-"))
    return cid, ids, await look(api, cid, organiser)


async def look(api, cid: str, headers: dict, **query) -> dict:
    r = await api.get(f"/championships/{cid}/monitor", headers=headers, params=query)
    assert r.status_code == 200, r.text
    return r.json()


async def test_the_monitor_counts_each_state_and_says_what_needs_the_organiser(api, pool, monkeypatch):
    _, organiser = await new_user(api, "organiser")
    cid, ids, seen = await started(api, pool, organiser, check_in_seconds=600)
    assert seen["round"] == 1 and seen["total"] == 2
    assert seen["counts"]["waiting_check_in"] == 2 and sum(seen["counts"].values()) == 2
    assert {m["state"] for m in seen["matches"]} == {"waiting_check_in"}
    assert seen["needs"] == []                                  # the window is open: nobody is late yet
    names = {n for m in seen["matches"] for n in m["names"]}
    assert names == {"Riyadh Falcons", "Jeddah Pearls", "Dammam Waves", "Abha Eagles"}

    # The two teams of one match check in: its table opens and it is played.
    first = seen["matches"][0]
    summary = (await api.get(f"/championships/{cid}", headers=organiser)).json()
    members = {t["team_id"]: t["players"] for t in summary["teams"]}
    login_of = {uid: login for login, uid in ids.items()}
    for team in (first["team_a"], first["team_b"]):
        for uid in members[team]:
            headers = {"Authorization": f"Bearer {await token_of(pool, uid)}"}
            r = await api.post(f"/championships/{cid}/matches/{first['match_id']}/check-in", headers=headers,
                               json={"command_id": f"in-{login_of[uid]}"})
            assert r.status_code == 200, r.text
    seen = await look(api, cid, organiser)
    by_id = {m["match_id"]: m for m in seen["matches"]}
    assert by_id[first["match_id"]]["state"] == "playing" and by_id[first["match_id"]]["tables"]
    assert by_id[first["match_id"]]["checked_in"] == [True, True]
    assert seen["counts"]["playing"] == 1 and seen["counts"]["waiting_check_in"] == 1

    # Filters and search; a page of one, then the next.
    assert [m["match_id"] for m in (await look(api, cid, organiser, state="playing"))["matches"]] == [
        first["match_id"]]
    found = await look(api, cid, organiser, q="abha")
    assert found["total"] == 1 and "Abha Eagles" in found["matches"][0]["names"]
    page = await look(api, cid, organiser, limit=1)
    assert len(page["matches"]) == 1 and page["next_after"] == 0
    rest = await look(api, cid, organiser, limit=1, after=page["next_after"])
    assert rest["next_after"] is None and rest["matches"][0]["match_id"] != page["matches"][0]["match_id"]

    # Nothing stored at the table for longer than the stall time: stalled, and said first.
    monkeypatch.setenv("BALOOT_STALL_SECONDS", "0")
    seen = await look(api, cid, organiser)
    assert seen["counts"]["stalled"] == 1 and seen["needs"][0]["kind"] == "stalled"
    assert seen["needs"][0]["match_id"] == first["match_id"]

    # At the window's end, the teams that did not check in are no-shows (the service asked about a later time).
    platform = await Platform.on(pool)
    later = dt.datetime.fromisoformat(seen["check_in_closes_at"]) + dt.timedelta(seconds=1)
    at_close = await monitor(platform.championships, cid, now=later)
    assert [a.kind for a in at_close.needs] == ["no_show", "stalled"]          # no-shows first
    other = next(m for m in at_close.matches if m.match_id != first["match_id"])
    assert next(a for a in at_close.needs if a.kind == "no_show").match_id == other.match_id


async def token_of(pool, user_id: str) -> str:
    from services.tokens import issue_token
    token, _ = await issue_token(pool, user_id)
    return token


async def test_a_decided_round_is_ready_for_the_next(api, pool):
    _, organiser = await new_user(api, "organiser")
    cid, ids, seen = await started(api, pool, organiser)
    for m in seen["matches"]:
        await command(api, cid, f"matches/{m['match_id']}/forfeit", organiser, f"ff-{m['match_id']}",
                      absent=m["team_b"])
    seen = await look(api, cid, organiser)
    assert seen["counts"]["finished"] == 2
    assert [a["kind"] for a in seen["needs"]] == ["round_ready"]


async def test_only_organisers_and_referees_watch_the_monitor(api, pool):
    _, organiser = await new_user(api, "organiser")
    cid, ids, _ = await started(api, pool, organiser)
    player = {"Authorization": f"Bearer {await token_of(pool, ids['saad'])}"}
    r = await api.get(f"/championships/{cid}/monitor", headers=player)
    assert r.status_code == 403 and r.json()["rule"] == "not_referee"
    _, other = await new_user(api, "another organiser")
    assert (await api.get(f"/championships/{cid}/monitor", headers=other)).status_code == 403
    r = await api.get("/championships?organised=true", headers=player)
    assert r.status_code == 403 and r.json()["rule"] == "not_organiser"
    mine = (await api.get("/championships?organised=true", headers=organiser)).json()
    assert [c["championship_id"] for c in mine] == [cid]


async def test_the_championship_says_what_its_tables_show_spectators(api, pool):
    _, organiser = await new_user(api, "organiser")
    r = await api.post("/championships", headers=organiser, json={"command_id": "c-always", "name": "Cup",
                                                                  "hands_policy": "always", "delay_seconds": 60})
    assert r.status_code == 400 and r.json()["field"] == "delay_seconds"
    assert await pool.fetchval("SELECT count(*) FROM events WHERE stream_id LIKE 'championship-%'") == 0
    cid, ids, seen = await started(api, pool, organiser, hands_policy="never", delay_seconds=120)
    table = seen["matches"][0]["tables"][0]
    terms = (await api.get(f"/tables/{table}/view", headers=organiser)).json()["terms"]
    assert (terms["hands_policy"], terms["delay_seconds"]) == ("never", 120)
    run = (await api.get(f"/championships/{cid}", headers=organiser)).json()["run"]
    assert (run["hands_policy"], run["delay_seconds"]) == ("never", 120)


async def test_the_organiser_extends_an_open_check_in_window(api, pool):
    _, organiser = await new_user(api, "organiser")
    cid, ids, seen = await started(api, pool, organiser, check_in_seconds=600)
    before = dt.datetime.fromisoformat(seen["check_in_closes_at"])
    r = await api.post(f"/championships/{cid}/rounds/1/check-in/extend", headers=organiser,
                       json={"command_id": "more-1", "seconds": 300})
    assert r.status_code == 200, r.text
    assert dt.datetime.fromisoformat(r.json()["closes_at"]) == before + dt.timedelta(seconds=300)
    again = await api.post(f"/championships/{cid}/rounds/1/check-in/extend", headers=organiser,
                           json={"command_id": "more-1", "seconds": 300})             # the same command again
    assert again.json()["closes_at"] == r.json()["closes_at"]
    seen = await look(api, cid, organiser)
    assert dt.datetime.fromisoformat(seen["check_in_closes_at"]) == before + dt.timedelta(seconds=300)
    # A player may not; another round may not be extended; nor by nothing.
    player = {"Authorization": f"Bearer {await token_of(pool, ids['saad'])}"}
    r = await api.post(f"/championships/{cid}/rounds/1/check-in/extend", headers=player,
                       json={"command_id": "x", "seconds": 60})
    assert r.status_code == 403 and r.json()["rule"] == "not_organiser"
    r = await api.post(f"/championships/{cid}/rounds/2/check-in/extend", headers=organiser,
                       json={"command_id": "y", "seconds": 60})
    assert r.status_code == 409 and r.json()["rule"] == "wrong_round"
    r = await api.post(f"/championships/{cid}/rounds/1/check-in/extend", headers=organiser,
                       json={"command_id": "z", "seconds": 0})
    assert r.status_code == 400 and r.json()["field"] == "seconds"
    # Once it has closed, it stays closed.
    platform = await Platform.on(pool)
    await platform.championships.check_ins.close(cid, 1)
    r = await api.post(f"/championships/{cid}/rounds/1/check-in/extend", headers=organiser,
                       json={"command_id": "late", "seconds": 60})
    assert r.status_code == 409 and r.json()["rule"] == "check_in_closed"


async def test_the_organiser_sees_the_teams_players_proposed(api, pool):
    _, organiser = await new_user(api, "organiser")
    cid = await create(api, organiser)
    (a, ha), (b, hb), (c, hc) = [await new_user(api, f"player {i}") for i in range(3)]
    r = await api.post(f"/championships/{cid}/teams", headers=ha,
                       json={"command_id": "t1", "team_id": "FALCONS", "players": [a, b]})
    assert r.status_code == 201 and r.json()["status"] == "invited"
    seen = (await api.get(f"/championships/{cid}/proposals", headers=organiser)).json()
    assert [(p["team_id"], p["proposed_by"], p["waiting"], p["status"]) for p in seen] == [
        ("FALCONS", a, [b], "invited")]
    assert (await api.get(f"/championships/{cid}/proposals", headers=hc)).status_code == 403
    assert (await api.post(f"/championships/{cid}/teams/FALCONS/accept", headers=hb)).status_code == 200
    assert (await api.get(f"/championships/{cid}/proposals", headers=organiser)).json() == []   # registered


async def test_a_call_at_a_championship_table_is_a_dispute_in_the_monitor_and_in_its_referees_queue(api, pool):
    _, organiser = await new_user(api, "organiser")
    cid, ids, seen = await started(api, pool, organiser)
    match = seen["matches"][0]
    (table_id,) = match["tables"]
    view = (await api.get(f"/tables/{table_id}/view", headers=organiser)).json()
    caller = next(login for login, uid in ids.items() if uid == view["seats"][0])
    headers = {"Authorization": f"Bearer {await token_of(pool, ids[caller])}"}
    r = await api.post(f"/tables/{table_id}/calls", headers=headers,
                       json={"command_id": "call", "reason": "connection_loss"})
    assert r.status_code == 201, r.text

    seen = await look(api, cid, organiser)
    by_id = {m["match_id"]: m for m in seen["matches"]}
    assert by_id[match["match_id"]]["state"] == "disputed" and seen["counts"]["disputed"] == 1
    (need,) = [a for a in seen["needs"] if a["kind"] == "disputed"]
    assert need["match_id"] == match["match_id"] and "a call waits for the referee" in need["detail"]
    (item,) = (await api.get("/referee/queue", headers=organiser)).json()     # the organiser referees his tables
    assert item["championship_id"] == cid and item["championship_name"] == "Riyadh Cup"
    assert item["match_id"] == match["match_id"]

    # Another championship's organiser is no referee here.
    _, other = await new_user(api, "another organiser")
    await create(api, other, command_id="other-cup")
    assert (await api.get("/referee/queue", headers=other)).json() == []
    r = await api.get(f"/tables/{table_id}/deals/1/desk", headers=other)
    assert r.status_code == 403 and r.json()["rule"] == "not_referee"

    r = await api.post(f"/tables/{table_id}/rulings", headers=organiser, json={
        "command_id": "no", "call": 1, "ruling": {"type": "reject", "reason": "the connection is back"}})
    assert r.status_code == 200, r.text
    assert {m["match_id"]: m for m in (await look(api, cid, organiser))["matches"]}[match["match_id"]]["state"] == "playing"
