"""GET /me/lobby: a person's invitations (with the table's terms), championships with the next match, live
tables and finished games; nobody else's."""

from __future__ import annotations

from tests.api.conftest import new_user
from tests.api.test_championships import command, create, register


async def lobby(api, headers) -> dict:
    r = await api.get("/me/lobby", headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


async def test_an_invitation_shows_its_terms_until_answered_then_the_table_is_live_then_finished(api, players,
                                                                                                 referee):
    (p0, h0), (p1, h1), (p2, h2), (p3, h3) = players
    r = await api.post("/tables", headers=referee, json={
        "seats": [p0, p1, p2, "bot"], "hands_policy": "never", "turn_seconds": 30, "on_timeout": "bot",
        "profile": "saudi"})
    assert r.status_code == 201, r.text
    tid = r.json()["table_id"]
    referee_id = (await api.get("/me", headers=referee)).json()["user_id"]
    seen = (await lobby(api, h1))["invitations"]
    assert [t["table_id"] for t in seen] == [tid]
    invitation = seen[0]
    assert invitation["proposed_by"] == referee_id and invitation["my_seat"] == 1
    assert sorted(invitation["waiting"]) == sorted([p0, p1, p2])
    assert invitation["terms"]["hands_policy"] == "never" and invitation["terms"]["turn_seconds"] == 30
    assert invitation["terms"]["on_timeout"] == "bot" and invitation["terms"]["bots"][3] is not None
    # Someone not invited sees none of it.
    assert await lobby(api, h3) == {"invitations": [], "team_invitations": [], "championships": [], "live": [],
                                    "finished": []}

    for h in (h0, h1):
        assert (await api.post(f"/tables/{tid}/accept", headers=h)).status_code == 200
    assert (await lobby(api, h1))["invitations"] == []            # answered: no longer an invitation
    assert [t["table_id"] for t in (await lobby(api, h2))["invitations"]] == [tid]
    assert (await api.post(f"/tables/{tid}/accept", headers=h2)).status_code == 200
    mine = await lobby(api, h2)
    assert [t["table_id"] for t in mine["live"]] == [tid] and mine["live"][0]["status"] == "live"

    r = await api.post(f"/tables/{tid}/rulings", headers=referee, json={
        "command_id": "end", "ruling": {"type": "end_game", "reason": "test", "winner": 1}})
    assert r.status_code == 200, r.text
    done = (await lobby(api, h0))["finished"]
    assert [t["table_id"] for t in done] == [tid] and done[0]["status"] == "finished"
    assert done[0]["places"][1] == 1 and done[0]["places"][0] == 2     # seats 1+3 won
    assert (await lobby(api, h0))["live"] == []


async def test_a_team_invitation_then_the_championship_with_the_next_match(api):
    organiser = (await new_user(api, "organiser"))[1]
    cid = await create(api, organiser)
    a, b = [await new_user(api, f"player {i}") for i in range(2)]
    r = await api.post(f"/championships/{cid}/teams", headers=a[1], json={
        "command_id": "team-1", "team_id": "FALCONS", "players": [a[0], b[0]]})
    assert r.status_code == 201, r.text
    invites = (await lobby(api, b[1]))["team_invitations"]
    assert [(i["championship_id"], i["championship"], i["team_id"], i["proposed_by"]) for i in invites] == [
        (cid, "Riyadh Cup", "FALCONS", a[0])]
    assert (await lobby(api, a[1]))["team_invitations"] == []          # the proposer answers nothing
    assert (await api.post(f"/championships/{cid}/teams/FALCONS/accept", headers=b[1])).status_code == 200
    assert (await lobby(api, b[1]))["team_invitations"] == []
    mine = (await lobby(api, b[1]))["championships"]
    assert [(c["championship_id"], c["team_id"], c["next_match"]) for c in mine] == [(cid, "FALCONS", None)]
    assert mine[0]["team_name"] == "player 0 & player 1"              # a team without a name: its players'

    others = [[await new_user(api, f"t{t} p{p}") for p in range(2)] for t in range(3)]
    for k, team in enumerate(others):
        assert (await register(api, cid, team, f"T{k}")).status_code == 201
    await command(api, cid, "registration/close", organiser, "close")
    await command(api, cid, "draw", organiser, "draw")
    await command(api, cid, "rounds/1/start", organiser, "start-1")
    match = (await lobby(api, a[1]))["championships"][0]["next_match"]
    assert match["round"] == 1 and match["status"] == "playing" and match["opponent"].startswith("T")
    k = int(match["opponent"][1:])
    assert match["opponent_name"] == f"t{k} p0 & t{k} p1"
    assert len(match["tables"]) == 1 and match["checked_in"] is False
    table = (await lobby(api, a[1]))["live"][0]
    assert table["table_id"] == match["tables"][0] and table["terms"]["championship_id"] == cid
