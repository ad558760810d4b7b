"""An organiser imports his teams from a CSV file: checked as a whole, every bad line named by its line, its
column and why, and nothing stored while any line is bad; the fixed file registers every team in one go, with
its name, club, region and rating (a draw by rating uses them); only the organiser imports."""

from __future__ import annotations

import csv
import io
import time

from tests.api.conftest import new_user
from tests.api.test_championships import command, create


async def people(pool, logins: list[str]) -> dict[str, str]:
    """Accounts with these logins (made in the database: signing up thousands through the API is not what
    is tested here); login -> user id."""
    ids = {login: f"u-{login}" for login in logins}
    await pool.executemany("INSERT INTO users (user_id, name, kind) VALUES ($1, $2, 'human')",
                           [(uid, login.title()) for login, uid in ids.items()])
    await pool.executemany("INSERT INTO credentials (user_id, login, password_hash) VALUES ($1, $2, 'x')",
                           [(uid, login) for login, uid in ids.items()])
    return ids


async def post_file(api, cid: str, headers: dict, text: str, command_id: str = "import-1", dry_run: bool = False):
    return await api.post(f"/championships/{cid}/teams/import?command_id={command_id}"
                          + ("&dry_run=true" if dry_run else ""),
                          content=text.encode(), headers={**headers, "content-type": "text/csv"})


async def stored(pool, cid: str) -> int:
    return await pool.fetchval("SELECT count(*) FROM events WHERE stream_id LIKE $1", f"%{cid}%")


GOOD = """team,player_1,player_2,club,region,rating
Riyadh Falcons,saad,noura,Al-Hilal,Riyadh,1612.5
Jeddah Pearls,fahad,BOT,,Makkah,1580
"Dammam, East",ahmad,badr,Al-Ettifaq,Eastern,1499
"""


async def test_a_file_with_bad_lines_is_refused_whole_with_each_line_named(api, pool):
    _, organiser = await new_user(api, "organiser")
    cid = await create(api, organiser)
    await people(pool, ["saad", "noura", "fahad", "ahmad", "badr"])
    before = await stored(pool, cid)
    bad = """team,player_1,player_2,club,region,rating
Riyadh Falcons,saad,noura,Al-Hilal,Riyadh,1612.5
Jeddah Pearls,fahad,nobody,,Makkah,high
riyadh falcons,ahmad,badr,,,
,ahmad,saad,,,
"""
    r = await post_file(api, cid, organiser, bad)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["rule"] == "bad_import" and r.headers["content-type"].startswith("application/problem+json")
    found = {(e["line"], e["column"]) for e in body["errors"]}
    # Line 3: a rating that is no number, and an unknown login; line 4: a name already on line 2 (whatever
    # its case); line 5: no name.
    assert found == {(3, "rating"), (3, "player_2"), (4, "team"), (5, "team")}
    assert body["error_count"] == len(body["errors"]) == 4
    assert "line 2" in next(e["reason"] for e in body["errors"] if (e["line"], e["column"]) == (4, "team"))
    assert await stored(pool, cid) == before
    # The file's own mistakes fixed, the unknown login is named.
    sound = """team,player_1,player_2,club,region,rating
Riyadh Falcons,saad,noura,Al-Hilal,Riyadh,1612.5
Jeddah Pearls,fahad,nobody,,Makkah,1580
Abha,ahmad,badr,,,
Taif,ghost,Fahad,,,
"""
    r = await post_file(api, cid, organiser, sound)
    assert r.status_code == 422
    named = {(e["line"], e["column"]): e["reason"] for e in r.json()["errors"]}
    assert set(named) == {(3, "player_2"), (5, "player_1"), (5, "player_2")}
    assert "'nobody'" in named[(3, "player_2")] and "'ghost'" in named[(5, "player_1")]
    assert "line 3" in named[(5, "player_2")]                  # Fahad (fahad, line 3) is in two teams
    assert await stored(pool, cid) == before
    summary = (await api.get(f"/championships/{cid}", headers=organiser)).json()
    assert summary["teams"] == []


async def test_the_fixed_file_registers_every_team_with_its_details_once(api, pool):
    _, organiser = await new_user(api, "organiser")
    cid = await create(api, organiser, seeding="rating")
    ids = await people(pool, ["saad", "noura", "fahad", "ahmad", "badr"])
    checked = await post_file(api, cid, organiser, GOOD, dry_run=True)
    assert checked.status_code == 201 and checked.json()["dry_run"] and checked.json()["teams"] == 3
    assert (await api.get(f"/championships/{cid}", headers=organiser)).json()["teams"] == []
    r = await post_file(api, cid, organiser, GOOD)
    assert r.status_code == 201, r.text
    assert r.json()["teams"] == 3 and not r.json()["dry_run"]
    teams = (await api.get(f"/championships/{cid}", headers=organiser)).json()["teams"]
    rows = list(csv.DictReader(io.StringIO(GOOD)))
    assert [t["name"] for t in teams] == [row["team"] for row in rows]
    assert [t["club"] for t in teams] == [row["club"] for row in rows]
    assert [t["region"] for t in teams] == [row["region"] for row in rows]
    assert [t["rating"] for t in teams] == [float(row["rating"]) for row in rows]
    assert teams[0]["players"] == [ids["saad"], ids["noura"]]
    assert teams[1]["players"][0] == ids["fahad"] and teams[1]["players"][1].startswith("bot-")
    # Sent again (a retry), nothing more; as a new import, each team is already there.
    again = await post_file(api, cid, organiser, GOOD)
    assert again.status_code == 201 and again.json()["replayed"] and len((await api.get(f"/championships/{cid}", headers=organiser))
                                            .json()["teams"]) == 3
    twice = await post_file(api, cid, organiser, GOOD, command_id="import-2")
    assert twice.status_code == 422
    assert {e["line"] for e in twice.json()["errors"]} == {2, 3, 4}
    assert "already registered" in twice.json()["errors"][0]["reason"]
    # Seeded by rating, the draw orders the field by the imported ratings.
    await command(api, cid, "registration/close", organiser, "close")
    draw = await command(api, cid, "draw", organiser, "draw")
    by_rating = [t["team_id"] for t in sorted(teams, key=lambda t: -t["rating"])]
    assert draw["summary"]["draw_order"] == by_rating


async def test_only_the_organiser_imports(api, pool):
    _, organiser = await new_user(api, "organiser")
    _, other = await new_user(api, "another organiser")
    cid = await create(api, organiser)
    await people(pool, ["saad", "noura", "fahad", "ahmad", "badr"])
    r = await post_file(api, cid, other, GOOD)
    assert r.status_code == 403 and r.json()["rule"] == "not_organiser"
    r = await post_file(api, cid, {}, GOOD)
    assert r.status_code == 401
    assert (await api.get(f"/championships/{cid}", headers=organiser)).json()["teams"] == []


async def test_ten_thousand_two_hundred_and_forty_teams_import_in_one_go(api, pool):
    _, organiser = await new_user(api, "organiser")
    cid = await create(api, organiser, command_id="big")
    logins = [f"p{i:05d}" for i in range(2 * 10_240)]
    await people(pool, logins)
    lines = ["team,player_1,player_2,club,region,rating"]
    lines += [f"Team {t:05d},{logins[2 * t]},{logins[2 * t + 1]},Club {t % 97},Region {t % 13},{1500 + t % 400}"
              for t in range(10_240)]
    text = "\n".join(lines) + "\n"
    assert len(text.encode()) > 64 * 1024          # larger than any other request may be
    started = time.perf_counter()
    r = await post_file(api, cid, organiser, text)
    print(f"10,240 teams imported in {time.perf_counter() - started:.1f} s")
    assert r.status_code == 201, r.text[:500]
    summary = (await api.get(f"/championships/{cid}", headers=organiser)).json()
    assert len(summary["teams"]) == 10_240 and summary["teams"][-1]["name"] == "Team 10239"


async def test_a_player_with_no_account_is_invited_and_claims_his_account(database_url, db_schema, pool):
    from litestar.testing import AsyncTestClient

    from tests.api.test_accounts import app_on, assert_problem, csrf

    async with AsyncTestClient(app=app_on(database_url, db_schema), timeout=30) as api:
        _, organiser = await new_user(api, "organiser")
        cid = await create(api, organiser)
        ids = await people(pool, ["saad"])
        text = "team,player_1,player_2\nFalcons,saad,+Newbie\nPearls,+omar,bot\n"
        checked = await post_file(api, cid, organiser, text, dry_run=True)
        assert [i["login"] for i in checked.json()["invited"]] == ["newbie", "omar"]
        assert checked.json()["invited"][0]["code"] == ""                # a dry run makes no account
        assert await pool.fetchval("SELECT count(*) FROM credentials WHERE login IN ('newbie', 'omar')") == 0
        r = await post_file(api, cid, organiser, text)
        assert r.status_code == 201, r.text
        invited = {i["login"]: i for i in r.json()["invited"]}
        teams = (await api.get(f"/championships/{cid}", headers=organiser)).json()["teams"]
        assert teams[0]["players"] == [ids["saad"], invited["newbie"]["user_id"]]
        assert teams[1]["players"][0] == invited["omar"]["user_id"]
        # Nobody signs in to an invited account before it is claimed, not even with an empty password.
        for password in ("", "a long secret"):
            r = await api.post("/session", json={"login": "newbie", "password": password or "x" * 8},
                               headers=await csrf(api))
            assert_problem(r, 401, "bad_credentials")
        # He claims it with his code and his own password: signed in, and the code is used up.
        r = await api.post("/accounts/claim", json={"code": invited["newbie"]["code"], "password": "my own secret",
                                                    "name": "New Bie"}, headers=await csrf(api))
        assert r.status_code == 200, r.text
        assert (r.json()["user_id"], r.json()["login"]) == (invited["newbie"]["user_id"], "newbie")
        assert (await api.get("/session")).json()["name"] == "New Bie"
        again = await api.post("/accounts/claim", json={"code": invited["newbie"]["code"], "password": "x" * 10},
                               headers=await csrf(api))
        assert_problem(again, 400, "bad_invitation", "code")
        assert_problem(await api.post("/accounts/claim", json={"code": "made-up", "password": "x" * 10},
                                      headers=await csrf(api)), 400, "bad_invitation", "code")
        r = await api.post("/session", json={"login": "NEWBIE", "password": "my own secret"}, headers=await csrf(api))
        assert r.status_code == 200
        # An unknown login without the "+" is still a bad line; "+" before a taken login is one too.
        r = await post_file(api, cid, organiser, "team,player_1,player_2\nEagles,ghost,+saad\n", command_id="i2")
        named = {(e["line"], e["column"]) for e in r.json()["errors"]}
        assert r.status_code == 422 and named == {(2, "player_1")}           # +saad is saad's own account


async def test_a_manual_draw_takes_the_organisers_order(api, pool):
    from domain.tournament.audit import audit
    from services.championships import CODEC, stream_of
    from services.eventstore import read_stream

    _, organiser = await new_user(api, "organiser")
    await people(pool, ["saad", "noura", "fahad", "ahmad", "badr", "khalid"])
    file = "team,player_1,player_2\nFalcons,saad,noura\nPearls,fahad,ahmad\nEagles,badr,khalid\n"
    cid = await create(api, organiser, command_id="manual", seeding="manual")
    assert (await post_file(api, cid, organiser, file)).status_code == 201
    teams = [t["team_id"] for t in (await api.get(f"/championships/{cid}", headers=organiser)).json()["teams"]]
    closed = await command(api, cid, "registration/close", organiser, "close")
    assert closed["summary"]["draw_commitment"] is None                  # nothing random to commit to
    r = await api.post(f"/championships/{cid}/draw", headers=organiser,
                       json={"command_id": "bad", "order": teams[:2]})
    assert r.status_code == 409 and r.json()["rule"] == "draw_order" and teams[2] in r.json()["detail"]
    mine = [teams[2], teams[0], teams[1]]
    drawn = await command(api, cid, "draw", organiser, "draw", order=mine)
    assert drawn["summary"]["draw_order"] == mine
    events = [CODEC.decode(r) for r in await read_stream(pool, stream_of(cid))]
    assert audit(events) == []
    # Without an order, the teams' own (the file's), best first.
    other = await create(api, organiser, command_id="manual-2", seeding="manual")
    assert (await post_file(api, other, organiser, file, command_id="i-2")).status_code == 201
    await command(api, other, "registration/close", organiser, "close")
    drawn = await command(api, other, "draw", organiser, "draw")
    names = {t["team_id"]: t["name"] for t in drawn["summary"]["teams"]}
    assert [names[t] for t in drawn["summary"]["draw_order"]] == ["Falcons", "Pearls", "Eagles"]
