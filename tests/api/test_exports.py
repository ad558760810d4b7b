"""A championship's exports for its organisers and referees (real PostgreSQL, over HTTP): the teams, matches
and standings as CSV, each equal to what the JSON routes say, and the tables' records in a zip, exactly the
finished deals' (and games'), each equal to its record route, with a manifest of their SHA-256. Nobody else
exports, and nothing still being played is in an export."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import random
import zipfile

from domain.tournament import RegisterTeam, TeamInfo
from services.eventstore import rebuild_projection
from services.platform import Platform
from services.workers.projections import standings_read_model
from tests.api.conftest import new_user
from tests.api.test_balut_championship import play_balut
from tests.api.test_championships import (
    choose,
    command,
    create,
    play_out,
    register,
    teams_of,
)

EXPORTS = ("teams.csv", "matches.csv", "standings.csv", "records.zip")
HYPERLINK = '=HYPERLINK("https://evil.example/","prize")'


def rows_of(r) -> list[dict[str, str]]:
    """A CSV export's rows, once its response is checked: a CSV attachment, UTF-8, CRLF lines (RFC 4180)."""
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "text/csv; charset=utf-8"
    assert r.headers["content-disposition"].startswith("attachment; filename=")
    assert r.headers["content-disposition"].endswith('.csv"')
    text = r.content.decode("utf-8")
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def text(cell: str) -> str:
    """A text cell as the value it stands for: a formula-like value is written with a leading apostrophe."""
    return cell[1:] if cell[:1] == "'" and cell[1:2] in ("=", "+", "-", "@", "\t", "\r") and len(cell) > 1 else cell


def number(cell: str) -> int | None:
    return None if cell == "" else int(cell)


def optional(cell: str) -> str | None:
    return None if cell == "" else text(cell)


async def play_into_deal(api, table_id: str, headers_of: dict[str, dict], deal_no: int, actions: int) -> dict:
    """Play the table until deal ``deal_no`` has started and ``actions`` of its actions are stored: a deal
    still being played."""
    rng = random.Random(table_id)
    any_player = next(iter(headers_of.values()))
    played = 0
    for n in range(5000):
        view = (await api.get(f"/tables/{table_id}/view", headers=any_player)).json()
        assert view["phase"] != "ended", "the game ended before the deal to stop in"
        if view["deal_no"] == deal_no:
            if played == actions:
                return view
            played += 1
        seat = view["deal"]["turn"]
        who = headers_of[view["seats"][seat]]
        legal = (await api.get(f"/tables/{table_id}/view", params={"seat": seat}, headers=who)).json()
        r = await api.post(f"/tables/{table_id}/commands", params={"seat": seat}, headers=who,
                           json={"command_id": f"p{n}", "action": choose(legal["deal"]["legal_actions"], rng)})
        assert r.status_code == 200, r.text
    raise AssertionError(f"table {table_id} did not reach deal {deal_no}")


async def check_records_zip(api, cid: str, headers: dict) -> tuple[zipfile.ZipFile, dict]:
    """The records export checked against the tables' own routes: it holds exactly the records the record
    routes give, each byte for byte in its JSON; what it left out is what those routes refuse; the manifest
    lists every file with its SHA-256. Returns the zip and its manifest."""
    r = await api.get(f"/championships/{cid}/export/records.zip", headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/zip"
    assert r.headers["content-disposition"].startswith("attachment; filename=")
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    assert archive.testzip() is None
    # Written as it was sent: each file's sizes follow its data (a data descriptor), nothing was sought back to.
    assert all(info.flag_bits & 0x08 for info in archive.infolist())
    manifest = json.loads(archive.read("manifest.json"))
    assert manifest["championship_id"] == cid and manifest["format"] == "baloot-arena-records/1"

    expected, refused = {}, set()
    for m in (await api.get(f"/championships/{cid}/matches", headers=headers)).json():
        for t in m["tables"]:
            tid = t["table_id"]
            where = f"round-{m['round']:02d}/{m['match_id']}/{tid}"
            view = (await api.get(f"/tables/{tid}/view", headers=headers)).json()
            game = (await api.get(f"/tables/{tid}/record", headers=headers))
            if view["game"] == "balut":
                if game.status_code == 200:
                    expected[f"{where}/game.json"] = game.json()
                else:
                    assert game.status_code == 409 and game.json()["rule"] == "game_in_progress", game.text
                    refused.add((tid, None, "game_in_progress"))
                continue
            assert game.status_code == 409 and game.json()["rule"] == "records_per_deal"
            for deal in (await api.get(f"/tables/{tid}/deals", headers=headers)).json():
                record = await api.get(f"/tables/{tid}/deals/{deal['deal_no']}/record", headers=headers)
                if deal["finished"]:
                    assert record.status_code == 200, record.text
                    expected[f"{where}/deal-{deal['deal_no']:03d}.json"] = record.json()
                else:
                    assert record.status_code == 409 and record.json()["rule"] == "deal_in_progress"
                    refused.add((tid, deal["deal_no"], "deal_in_progress"))

    names = set(archive.namelist())
    assert names == {*expected, "manifest.json"}
    assert len(archive.namelist()) == len(names)                     # each once
    for name, record in expected.items():
        assert json.loads(archive.read(name)) == record, name
    listed = {f["path"]: f for f in manifest["files"]}
    assert set(listed) == set(expected) and len(manifest["files"]) == len(expected)
    for name, entry in listed.items():
        data = archive.read(name)
        assert entry["sha256"] == hashlib.sha256(data).hexdigest() and entry["bytes"] == len(data)
        assert entry["format"] == expected[name]["format"]
        assert name.startswith(f"round-{entry['round']:02d}/{entry['match_id']}/{entry['table_id']}/")
    assert {(x["table_id"], x["deal_no"], x["rule"]) for x in manifest["left_out"]} == refused
    return archive, manifest


async def test_the_organiser_and_referees_export_what_the_json_routes_say(api, pool):
    _, organiser = await new_user(api, "organiser")
    referee_id, referee = await new_user(api, "referee")
    _, stranger = await new_user(api, "stranger")
    teams = await teams_of(api, 5)
    # Names are the users' own: one that a spreadsheet would run as a formula.
    teams[1][1] = await new_user(api, HYPERLINK)
    sub_id, _ = await new_user(api, "-1+1 substitute")
    headers_of = {uid: h for team in teams for uid, h in team}
    ids = ["T1", "T2", "T3", "T4", "T5"]
    cid = await create(api, organiser, seeding="rating")
    for k, team in enumerate(teams):
        extra = {"substitutes": [sub_id]} if k == 0 else {}
        r = await register(api, cid, team, ids[k], headers=organiser if k == 0 else None, **extra)
        assert r.status_code == 201, r.text
    # A team of bots (the organiser's), its id and its bots' names starting like a formula: seed 1, a bye.
    r = await api.post(f"/championships/{cid}/teams", headers=organiser,
                       json={"command_id": "bots", "team_id": "-bots", "players": ["bot", "bot"]})
    assert r.status_code == 201, r.text
    r = await api.post(f"/championships/{cid}/referees", json={"user_id": referee_id}, headers=organiser)
    assert r.status_code == 200, r.text
    await command(api, cid, "registration/close", organiser, "close")
    await command(api, cid, "draw", organiser, "draw",
                  ratings={"-bots": 2000, "T1": 1900, "T2": 1800, "T3": 1700, "T4": 1600, "T5": 1500})

    # Round 1: six teams in a bracket of eight: the two best seeds have byes; T2-T5 is played, T4 withdraws
    # from T3-T4 (a forfeit; its table had opened and stays unplayed).
    await command(api, cid, "rounds/1/start", organiser, "round-1")
    matches = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    assert sorted(m["note"] for m in matches) == ["", "", "bye", "bye"]
    played = next(m for m in matches if {m["team_a"], m["team_b"]} == {"T2", "T5"})
    await play_out(api, played["tables"][0]["table_id"], headers_of)
    await command(api, cid, "teams/T4/withdraw", teams[3][0][1], "withdraw", reason="ill")

    # Round 2: the bots' match is a double forfeit (its table opened, its bots never played: no worker runs
    # here); the other is in its second deal while the export is made.
    await command(api, cid, "rounds/2/start", organiser, "round-2")
    second = (await api.get(f"/championships/{cid}/matches", params={"round": 2}, headers=organiser)).json()
    bots_match = next(m for m in second if "-bots" in (m["team_a"], m["team_b"]))
    live_match = next(m for m in second if m is not bots_match)
    await command(api, cid, f"matches/{bots_match['match_id']}/double-forfeit", referee, "both-out")
    live_table = live_match["tables"][0]["table_id"]
    await play_into_deal(api, live_table, headers_of, deal_no=2, actions=3)
    await rebuild_projection(pool, standings_read_model())        # as the workers' projection runner would

    champ = (await api.get(f"/championships/{cid}", headers=organiser)).json()
    matches = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    standings = (await api.get(f"/championships/{cid}/standings", headers=organiser)).json()
    assert {m["outcome"] for m in matches} == {"played", "forfeit", "bye", "double_forfeit", None}
    assert standings, "the standings read model is built"

    # teams.csv: one row per team of GET /championships/{id}, with the players' public names of GET /users.
    teams_rows = rows_of(await api.get(f"/championships/{cid}/export/teams.csv", headers=organiser))
    people = sorted({u for t in champ["teams"] for u in (*t["players"], *t["substitutes"])})
    names = {u["user_id"]: u["name"] for u in (await api.get("/users", params={"ids": ",".join(people)},
                                                             headers=organiser)).json()}
    assert [text(row["team_id"]) for row in teams_rows] == [t["team_id"] for t in champ["teams"]]
    for row, team in zip(teams_rows, champ["teams"]):
        for field in ("name", "club", "region"):                 # what the organiser said of it, if anything
            assert text(row[field]) == (team.get(field) or "")
        assert (float(row["rating"]) if row["rating"] else None) == team.get("rating")
        assert row["status"] == ("withdrawn" if team["withdrawn"] else "registered")
        assert row["late"] == str(team["late"]).lower()
        assert number(row["seed"]) == champ["draw_order"].index(team["team_id"]) + 1
        for k, uid in enumerate(team["players"], 1):
            assert (row[f"player_{k}_id"], text(row[f"player_{k}_name"])) == (uid, names[uid])
        for k in range(1, 5):
            uid = team["substitutes"][k - 1] if k <= len(team["substitutes"]) else None
            assert optional(row[f"substitute_{k}_id"]) == uid
            assert optional(row[f"substitute_{k}_name"]) == (names[uid] if uid else None)
    assert {row["team_id"]: row["status"] for row in teams_rows}["T4"] == "withdrawn"
    # What a spreadsheet would run is written as text; nothing else is touched.
    cells = [c for row in teams_rows for c in row.values()]
    assert "'" + HYPERLINK in cells and HYPERLINK not in cells
    assert "'-bots" in cells and "'-bots bot 1" in cells and "'-1+1 substitute" in cells
    assert not any(c.startswith(("=", "+", "-", "@")) for c in cells)
    assert "player 0" in " ".join(cells)                      # "team 0 player 0": plain names stay plain

    # matches.csv: one row per match of GET /matches, with the points the tables' final scores add up to, and
    # each team named beside its id (these teams were given no name: their players', as people call them).
    name_of = {t["team_id"]: " & ".join(names[p] for p in t["players"]) for t in champ["teams"]}
    assert name_of["T2"] == f"team 1 player 0 & {HYPERLINK}"
    match_rows = rows_of(await api.get(f"/championships/{cid}/export/matches.csv", headers=organiser))
    assert [row["match_id"] for row in match_rows] == [m["match_id"] for m in matches]
    for row, m in zip(match_rows, matches):
        assert number(row["round"]) == m["round"] and row["stage"] == m["stage"] and row["note"] == m["note"]
        assert (optional(row["team_a"]), optional(row["team_b"])) == (m["team_a"], m["team_b"])
        assert (optional(row["team_a_name"]), optional(row["team_b_name"])) == (name_of.get(m["team_a"]),
                                                                               name_of.get(m["team_b"]))
        assert (row["status"], optional(row["outcome"]), optional(row["winner"])) == (
            m["status"], m["outcome"], m["winner"])
        assert optional(row["winner_name"]) == name_of.get(m["winner"])
        games = [number(row["team_a_games"]), number(row["team_b_games"])]
        assert games == (m["games"] or [None, None])
        assert row["tables"].split() == [t["table_id"] for t in m["tables"]]
        if m["outcome"] == "played":
            scores = [(await api.get(f"/tables/{t['table_id']}/view", headers=organiser)).json()["scores"]
                      for t in m["tables"]]
            assert number(row["team_a_points"]) == sum(s[0] for s in scores)
            assert number(row["team_b_points"]) == sum(s[1] for s in scores)
            assert row["game_scores"] == " ".join(f"{a}:{b}" for a, b in scores)
        else:
            assert row["team_a_points"] == row["team_b_points"] == row["game_scores"] == ""

    # standings.csv: GET /standings, every column of its rows, in its order.
    r = await api.get(f"/championships/{cid}/export/standings.csv", headers=organiser)
    standing_rows = rows_of(r)
    assert r.content.decode().split("\r\n")[0].split(",") == list(standings[0])
    assert [{k: (text(v) if k in ("team_id", "name") else int(v)) for k, v in row.items()} for row in standing_rows] == (
        standings)

    # records.zip: exactly the finished deals' records (the round-1 forfeit's and the bots' tables never
    # finished a deal; the live table's second deal is being played).
    archive, manifest = await check_records_zip(api, cid, organiser)
    assert manifest["teams"] == name_of
    sides = {m["match_id"]: [name_of.get(m["team_a"]), name_of.get(m["team_b"])] for m in matches}
    assert all(f["teams"] == sides[f["match_id"]] for f in manifest["files"])
    assert (live_table, 2, "deal_in_progress") in {(x["table_id"], x["deal_no"], x["rule"])
                                                   for x in manifest["left_out"]}
    assert any(name.startswith(f"round-02/{live_match['match_id']}/{live_table}/deal-001")
               for name in archive.namelist())
    assert len(manifest["files"]) >= 3

    # A referee of the championship exports the same.
    for what in ("teams.csv", "matches.csv", "standings.csv"):
        mine = await api.get(f"/championships/{cid}/export/{what}", headers=organiser)
        theirs = await api.get(f"/championships/{cid}/export/{what}", headers=referee)
        assert theirs.status_code == 200 and theirs.content == mine.content
    await check_records_zip(api, cid, referee)

    # A player of the championship (seated at the live table), a stranger: 403 and nothing else; none: 404.
    player = headers_of[teams[2][0][0]]
    for who in (player, stranger):
        for what in EXPORTS:
            r = await api.get(f"/championships/{cid}/export/{what}", headers=who)
            assert r.status_code == 403, r.text
            assert r.headers["content-type"].startswith("application/problem+json")
            assert "content-disposition" not in r.headers
            problem = r.json()
            assert problem["rule"] == "not_organiser" and set(problem) == {
                "type", "title", "status", "detail", "rule", "instance"}
    for what in EXPORTS:
        r = await api.get(f"/championships/nope/export/{what}", headers=organiser)
        assert r.status_code == 404 and r.json()["rule"] == "unknown_championship"
        assert (await api.get(f"/championships/{cid}/export/{what}")).status_code == 401


async def test_a_team_named_like_a_formula_is_exported_as_text(api, pool):
    """A team's name (and club, region) is the organiser's text: a spreadsheet must not run it."""
    organiser_id, organiser = await new_user(api, "organiser")
    (a, _), (b, _) = [await new_user(api, f"named {i}") for i in range(2)]
    cid = await create(api, organiser)
    info = TeamInfo(name=HYPERLINK, club="+966 club", region="@riyadh")
    # Registered as an organiser's import (POST /teams/import) does, through the championship service (on this
    # test's own pool).
    await (await Platform.on(pool)).championships.execute(
        cid, "named", lambda _: [RegisterTeam("named", (a, b), (), info=info)], actor=organiser_id)
    (team,) = (await api.get(f"/championships/{cid}", headers=organiser)).json()["teams"]
    assert team["name"] == HYPERLINK

    (row,) = rows_of(await api.get(f"/championships/{cid}/export/teams.csv", headers=organiser))
    assert (row["name"], row["club"], row["region"]) == ("'" + HYPERLINK, "'+966 club", "'@riyadh")
    assert (text(row["name"]), text(row["club"]), text(row["region"])) == (team["name"], team["club"], team["region"])


async def test_a_balut_championship_exports_only_its_finished_games(api):
    _, organiser = await new_user(api, "organiser")
    teams = await teams_of(api, 4)
    headers_of = {uid: h for team in teams for uid, h in team}
    cid = await create(api, organiser, game="balut")
    for k, team in enumerate(teams):
        assert (await register(api, cid, team, f"P{k + 1}")).status_code == 201
    await command(api, cid, "registration/close", organiser, "close")
    await command(api, cid, "draw", organiser, "draw")
    first, second = (await command(api, cid, "rounds/1/start", organiser, "round-1"))["tables"]
    await play_balut(api, first["table_id"], headers_of)
    # Three turns of the other game: its seeds to come stay unrevealed, and so does its record.
    for n in range(3):
        view = (await api.get(f"/tables/{second['table_id']}/view", headers=organiser)).json()
        who = headers_of[view["seats"][view["turn"]]]
        legal = (await api.get(f"/tables/{second['table_id']}/view", headers=who)).json()["legal_actions"]
        r = await api.post(f"/tables/{second['table_id']}/commands", headers=who,
                           json={"command_id": f"t{n}", "action": legal[-1]})
        assert r.status_code == 200, r.text

    _, manifest = await check_records_zip(api, cid, organiser)
    (entry,) = manifest["files"]
    assert entry["path"].endswith(f"/{first['table_id']}/game.json") and entry["format"] == "balut-game/1"
    assert entry["deal_no"] is None
    assert [(x["table_id"], x["rule"]) for x in manifest["left_out"]] == [(second["table_id"], "game_in_progress")]

    match_rows = rows_of(await api.get(f"/championships/{cid}/export/matches.csv", headers=organiser))
    matches = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    assert [(r["match_id"], r["status"], optional(r["winner"])) for r in match_rows] == [
        (m["match_id"], m["status"], m["winner"]) for m in matches]
    assert sorted(r["status"] for r in match_rows) == ["decided", "playing"]
