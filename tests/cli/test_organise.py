"""`baloot championship create|import|close|draw|start-round|forfeit|status|export` against a running server
(uvicorn on this test's schema): what an organiser who scripts does, each command one request, a refusal said
with every bad line of a file and exit 1, `--json` the server's own answer."""

from __future__ import annotations

import json

import argon2
import httpx
import pytest

from services.api.app import create_app
from services.cli import main
from services.db import schema_url
from tests.web.conftest import Server

CHEAP = argon2.PasswordHasher.from_parameters(argon2.profiles.CHEAPEST)
HUGE = ("second", 100_000)


@pytest.fixture
def server(database_url, db_schema):
    running = Server(create_app(schema_url(database_url, db_schema), rate_limit=HUGE, signup_limit=HUGE,
                                password_hasher=CHEAP))
    try:
        yield f"http://127.0.0.1:{running.port}"
    finally:
        running.stop()


def account(base: str, login: str, password: str = "a long secret") -> str:
    """An account made as a browser makes it (the CSRF cookie first); its user id."""
    with httpx.Client(base_url=base) as browser:
        browser.get("/health")
        r = browser.post("/accounts", json={"login": login, "password": password, "name": login.title()},
                         headers={"X-CSRF-Token": browser.cookies["baloot_csrf"]})
        assert r.status_code == 201, r.text
        return r.json()["user_id"]


def baloot(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_an_organiser_runs_a_championship_from_the_command_line(server, capsys, tmp_path, monkeypatch):
    account(server, "maryam")
    people = {login: account(server, login) for login in ("saad", "noura", "fahad", "ahmad")}
    monkeypatch.setenv("BALOOT_PASSWORD", "a long secret")
    who = ("--server", server, "--login", "maryam")
    code, out, _ = baloot(capsys, "championship", "create", *who, "--name", "Riyadh Cup", "--json")
    assert code == 0
    cid = json.loads(out)["championship_id"]

    bad = tmp_path / "teams.csv"
    bad.write_text("team,player_1,player_2,rating\nFalcons,saad,noura,x\nPearls,fahad,ghost,\n,ahmad,bot,\n")
    code, out, err = baloot(capsys, "championship", "import", *who, cid, str(bad))
    assert code == 1
    assert "line 2, rating" in err and "line 3, player_2" in err and "line 4, team" in err
    code, out, _ = baloot(capsys, "championship", "status", *who, cid, "--json")
    assert json.loads(out)["championship"]["teams"] == []                # nothing stored

    good = tmp_path / "fixed.csv"
    good.write_text("team,player_1,player_2,rating\nFalcons,saad,noura,1600\nPearls,fahad,ahmad,1500\n"
                    "Eagles,+khalid,bot,1400\n")
    code, out, _ = baloot(capsys, "championship", "import", *who, cid, str(good), "--dry-run")
    assert code == 0 and "3 teams would be imported" in out and "1 accounts would be made: khalid" in out
    code, out, _ = baloot(capsys, "championship", "import", *who, cid, str(good))
    assert code == 0 and "3 teams imported" in out and "1 accounts made" in out
    khalid_code = next(line.split()[1] for line in out.splitlines() if line.strip().startswith("khalid"))
    with httpx.Client(base_url=server) as browser:            # Khalid claims his account with the code
        browser.get("/health")
        r = browser.post("/accounts/claim", json={"code": khalid_code, "password": "khalid's secret"},
                         headers={"X-CSRF-Token": browser.cookies["baloot_csrf"]})
        assert r.status_code == 200 and r.json()["login"] == "khalid"
    code, out, _ = baloot(capsys, "championship", "import", *who, cid, str(good))   # the same file again
    assert code == 0 and "imported already" in out

    code, out, _ = baloot(capsys, "championship", "close", *who, cid, "--json")
    commitment = json.loads(out)["summary"]["draw_commitment"]
    code, out, _ = baloot(capsys, "championship", "draw", *who, cid)
    assert code == 0 and "seed" in out
    code, out, _ = baloot(capsys, "championship", "start-round", *who, cid, "1", "--json")
    assert code == 0 and len(json.loads(out)["tables"]) == 1
    code, out, _ = baloot(capsys, "championship", "status", *who, cid, "--json")
    status = json.loads(out)
    assert status["current_round"] == 1 and len(status["matches"]) == 2             # one of them a bye
    assert status["championship"]["draw_commitment"] == commitment
    played = next(m for m in status["matches"] if m["tables"])
    code, out, _ = baloot(capsys, "championship", "forfeit", *who, cid, played["match_id"], "--absent",
                          played["team_a"], "--json")
    assert code == 0
    code, out, _ = baloot(capsys, "championship", "status", *who, cid)
    assert "matches: 2 decided" in out
    assert {t["players"][0] for t in status["championship"]["teams"]} >= {people["saad"], people["fahad"]}


def test_a_player_is_refused_and_a_missing_server_is_said(server, capsys, tmp_path, monkeypatch):
    account(server, "maryam")
    account(server, "player")
    monkeypatch.setenv("BALOOT_PASSWORD", "a long secret")
    code, out, _ = baloot(capsys, "championship", "create", "--server", server, "--login", "maryam",
                          "--name", "Cup", "--json")
    cid = json.loads(out)["championship_id"]
    code, _, err = baloot(capsys, "championship", "close", "--server", server, "--login", "player", cid)
    assert code == 1 and "not_organiser" in err
    code, out, _ = baloot(capsys, "championship", "close", "--server", server, "--login", "player", cid, "--json")
    assert code == 1 and json.loads(out)["rule"] == "not_organiser"
    monkeypatch.setenv("BALOOT_PASSWORD", "wrong password")
    code, _, err = baloot(capsys, "championship", "status", "--server", server, "--login", "player", cid)
    assert code == 1 and "bad_credentials" in err
    code, _, err = baloot(capsys, "championship", "status", "--server", "http://127.0.0.1:9", "--token", "x", cid)
    assert code == 2 and "cannot reach" in err


def test_ten_thousand_two_hundred_and_forty_teams_through_the_command_line(server, capsys, tmp_path, monkeypatch,
                                                                          database_url, db_schema):
    import asyncio

    import asyncpg

    async def people(n: int) -> None:
        conn = await asyncpg.connect(schema_url(database_url, db_schema))
        try:
            await conn.executemany("INSERT INTO users (user_id, name, kind) VALUES ($1, $1, 'human')",
                                   [(f"pl{i:05d}",) for i in range(n)])
            await conn.executemany("INSERT INTO credentials (user_id, login, password_hash) VALUES ($1, $1, 'x')",
                                   [(f"pl{i:05d}",) for i in range(n)])
        finally:
            await conn.close()
    asyncio.run(people(2 * 10_240))
    account(server, "maryam")
    monkeypatch.setenv("BALOOT_PASSWORD", "a long secret")
    who = ("--server", server, "--login", "maryam")
    code, out, _ = baloot(capsys, "championship", "create", *who, "--name", "Saudi Cup", "--json")
    cid = json.loads(out)["championship_id"]
    teams = tmp_path / "teams.csv"
    teams.write_text("team,player_1,player_2,club,region\n" + "".join(
        f"Team {t},pl{2 * t:05d},pl{2 * t + 1:05d},Club {t % 50},Region {t % 13}\n" for t in range(10_240)))
    code, out, err = baloot(capsys, "championship", "import", *who, cid, str(teams), "--json")
    assert code == 0, out[:500]
    assert json.loads(out)["teams"] == 10_240
    code, out, _ = baloot(capsys, "championship", "status", *who, cid)
    assert "10,240 teams" in out
