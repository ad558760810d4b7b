"""GET /me/lobby finds a person's championships and team invitations from their own indexes (issue 45, item 9):
however many championships others create, his own stay in his lobby with their next match; and the migration's
backfill of the indexes gives exactly what the writes keep."""

from __future__ import annotations

from pathlib import Path

from services.lobby import CHAMPIONSHIPS
from tests.api.conftest import new_user
from tests.api.test_championships import command, create, register
from tests.api.test_lobby import lobby

MIGRATION = Path(__file__).resolve().parents[2] / "migrations" / "0022_lobby.sql"
BACKFILL_MARK = "-- The championships and proposals stored before this migration."


async def test_a_players_championship_and_team_invitation_stay_in_his_lobby_after_a_flood_of_championships(api):
    organiser = (await new_user(api, "organiser"))[1]
    cid = await create(api, organiser)
    (p0, h0), (p1, _) = [await new_user(api, f"player {i}") for i in range(2)]
    sub, sub_headers = await new_user(api, "substitute")
    r = await api.post(f"/championships/{cid}/teams", headers=organiser, json={
        "command_id": "falcons", "team_id": "FALCONS", "players": [p0, p1], "substitutes": [sub]})
    assert r.status_code == 201, r.text
    for k in range(3):
        assert (await register(api, cid, [await new_user(api, f"t{k} p{p}") for p in range(2)], f"T{k}")
                ).status_code == 201
    await command(api, cid, "registration/close", organiser, "close")
    await command(api, cid, "draw", organiser, "draw")
    await command(api, cid, "rounds/1/start", organiser, "start-1")
    # And a team proposed to him in another championship, not answered yet.
    other = await create(api, organiser, command_id="create-2")
    friend, friend_headers = await new_user(api, "friend")
    r = await api.post(f"/championships/{other}/teams", headers=friend_headers, json={
        "command_id": "hawks", "team_id": "HAWKS", "players": [friend, p0]})
    assert r.status_code == 201 and r.json()["status"] == "invited", r.text

    spammer = (await new_user(api, "spammer"))[1]
    for k in range(CHAMPIONSHIPS + 1):            # newer than his, more than a lobby lists
        await create(api, spammer, command_id=f"empty-{k}")

    seen = await lobby(api, h0)
    assert [(c["championship_id"], c["team_id"]) for c in seen["championships"]] == [(cid, "FALCONS")]
    match = seen["championships"][0]["next_match"]
    assert match is not None and match["round"] == 1 and match["status"] == "playing" and len(match["tables"]) == 1
    assert [(i["championship_id"], i["team_id"], i["proposed_by"]) for i in seen["team_invitations"]] == [
        (other, "HAWKS", friend)]
    # The substitute belongs to it too; the spammer and a stranger have nothing there.
    assert [c["championship_id"] for c in (await lobby(api, sub_headers))["championships"]] == [cid]
    assert (await lobby(api, spammer))["championships"] == []
    # Once he accepts, the invitation leaves and the championship joins his list.
    assert (await api.post(f"/championships/{other}/teams/HAWKS/accept", headers=h0)).status_code == 200
    seen = await lobby(api, h0)
    assert seen["team_invitations"] == []
    assert [c["championship_id"] for c in seen["championships"]] == [other, cid]      # newest membership first


async def _indexes(pool) -> tuple:
    return (
        sorted(map(tuple, await pool.fetch("SELECT championship_id, user_id, since FROM championship_members"))),
        sorted(map(tuple, await pool.fetch(
            "SELECT championship_id, team_id, user_id, proposed_by, since FROM team_invites_pending"))),
        sorted(map(tuple, await pool.fetch("SELECT table_id, proposed_by FROM tables_index"))))


async def test_the_migrations_backfill_gives_what_the_writes_keep(api, pool):
    organiser = (await new_user(api, "organiser"))[1]
    cid = await create(api, organiser)
    people = [await new_user(api, f"p{i}") for i in range(9)]
    (a, ha), (b, _), (c, hc), (d, hd), (e, he), (f, _), (g, hg), (h, hh), (s, _) = people
    # Registered by the organiser (with a substitute), proposed and accepted, proposed and pending (one of two
    # answered), proposed and declined.
    assert (await api.post(f"/championships/{cid}/teams", headers=organiser, json={
        "command_id": "t1", "team_id": "T1", "players": [a, b], "substitutes": [s]})).status_code == 201
    assert (await register(api, cid, [(c, hc), (d, hd)], "T2")).status_code == 201
    r = await api.post(f"/championships/{cid}/teams", headers=he, json={
        "command_id": "t3", "team_id": "T3", "players": [e, f], "substitutes": [g]})
    assert r.status_code == 201, r.text
    assert (await api.post(f"/championships/{cid}/teams/T3/accept", headers=hg)).status_code == 200
    r = await api.post(f"/championships/{cid}/teams", headers=hh, json={
        "command_id": "t4", "team_id": "T4", "players": [h, g]})
    assert r.status_code == 201, r.text
    assert (await api.post(f"/championships/{cid}/teams/T4/decline", headers=hg)).status_code == 200
    # The substitute comes in.
    await command(api, cid, "teams/T1/substitute", organiser, "sub", player_out=b, player_in=s)
    # Tables: one proposed and waiting, one opened at once by its referee with bots only answering.
    r = await api.post("/tables", headers=ha, json={"seats": [a, c, "bot", "bot"]})
    assert r.status_code == 201, r.text
    kept = await _indexes(pool)
    assert {row[1] for row in kept[0]} == {a, b, s, c, d}
    assert {(row[1], row[2]) for row in kept[1]} == {("T3", f)}
    assert [row[1] for row in kept[2]] == [a]

    await pool.execute("DELETE FROM championship_members; DELETE FROM team_invites_pending; "
                       "UPDATE tables_index SET proposed_by = NULL")
    await pool.execute(MIGRATION.read_text().split(BACKFILL_MARK, 1)[1])
    assert await _indexes(pool) == kept
