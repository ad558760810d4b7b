"""`baloot demo`: a championship of bot teams under way, a table waiting for a person, and the accounts to sign
in with, made in the served database, as `baloot serve` then finds them (its API here, its workers' view of
what each table waits for)."""

from __future__ import annotations

import asyncio
import hashlib
import json

import pytest
from litestar.testing import AsyncTestClient

from domain.tournament.events import DrawMade, RoundPaired, TeamRegistered
from services.api.app import create_app
from services.api.sessions import CSRF_COOKIE, CSRF_HEADER
from services.cli import build_parser, main
from services.db import schema_url
from services.platform import Platform
from services.roles import has_role
from services.tables.pending import pending_work
from services.workers.schedules import runs_itself


@pytest.fixture
def url(database_url, db_schema) -> str:
    return schema_url(database_url, db_schema)


@pytest.fixture
async def platform(pool) -> Platform:
    return await Platform.on(pool)          # the same server secret as the command's (BALOOT_SECRET)


@pytest.fixture
async def browser(url):
    """A browser on the API that `baloot serve` would serve from the same database."""
    async with AsyncTestClient(app=create_app(url, rate_limit=("second", 10_000)), timeout=30) as client:
        yield client


async def demo(capsys, url: str, *options: str) -> dict:
    """Run `baloot demo --json` as a user would (its own event loop, in a thread) and read its document."""
    code = await asyncio.to_thread(main, ["demo", "--json", "--database-url", url, *options])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


async def sign_in(browser, login: str, password: str):
    browser.cookies.clear()
    assert (await browser.get("/health")).status_code == 200        # the page load that gives the CSRF cookie
    return await browser.post("/session", json={"login": login, "password": password},
                              headers={CSRF_HEADER: browser.cookies[CSRF_COOKIE]})


async def test_the_demo_is_a_championship_under_way_a_table_waiting_for_a_person_and_an_organiser(
        capsys, url, pool, platform, browser):
    doc = await demo(capsys, url, "--seed", "s1", "--base-url", "http://arena.test:9000/")
    c, t, player, organiser = doc["championship"], doc["table"], doc["player"], doc["organiser"]
    referee = doc["referee"]
    assert (doc["demo"], doc["seed"], player["login"], organiser["login"], referee["login"]) == (
        1, "s1", "demo", "organiser", "referee")
    cid, tid = c["championship_id"], t["table_id"]

    # The championship: 8 teams of two bots, registration closed, the committed draw made, round 1 started.
    champ = await platform.championships.load(cid)
    state = champ.state
    assert (state.status, state.settings.format, len(state.rounds)) == ("running", "single_elimination", 1)
    team_ids = [team["team_id"] for team in c["teams"]]
    assert len(team_ids) == 8 and list(state.team_order) == team_ids
    players = [p for tid_ in team_ids for p in state.teams[tid_].players]
    assert len(set(players)) == 16
    kinds = {r["user_id"]: r["kind"] for r in await pool.fetch("SELECT user_id, kind FROM users WHERE "
                                                               "user_id = ANY($1)", players)}
    assert kinds == {p: "bot" for p in players}
    assert state.draw is not None and sorted(state.draw.order) == sorted(team_ids)
    assert state.commitment == hashlib.sha256(state.draw.seed.encode()).hexdigest() == c["draw_commitment"]
    kinds_in_order = [type(e) for e in await platform.championships.events(cid)]
    assert kinds_in_order.count(TeamRegistered) == 8
    assert kinds_in_order.index(DrawMade) < kinds_in_order.index(RoundPaired) == len(kinds_in_order) - 1
    assert champ.run.bot_pace_seconds == 1.0 and champ.run.bot_level == "normal"
    assert runs_itself(champ)                           # the workers start its next rounds
    assert await has_role(pool, organiser["user_id"], "organiser", ("championship", cid))

    # Round 1's four tables are open, every seat a bot, paced: each waits for its bot's next (paced) turn.
    rows = await platform.championships.matches.tables_of(cid)
    assert sorted(r["table_id"] for r in rows) == sorted(c["tables"]) and len(rows) == 4
    assert {r["status"] for r in rows} == {"live"}
    for r in rows:
        table = await platform.tables.load(r["table_id"])
        assert table.opened.bot_pace == 1.0 and all(table.bots) and set(table.seats) <= set(players)
        work = pending_work(table)
        assert work is not None and work.kind == "bot" and work.due is not None

    # The person's table: proposed by the referee for him and three normal bots, waiting in his lobby with
    # nothing running (no bot turn, no clock) until he accepts it there.
    table = await platform.tables.load(tid)
    assert table.opened is None and table.waiting == (player["user_id"],) and not table.cancelled
    assert table.proposed.opened_by == referee["user_id"] == t["referee"]
    assert table.seats[0] == player["user_id"] and table.proposed.bots == (None, "normal", "normal", "normal")
    bots = await pool.fetch("SELECT DISTINCT kind FROM users WHERE user_id = ANY($1)", list(table.seats[1:]))
    assert [r["kind"] for r in bots] == ["bot"]
    assert pending_work(table) is None
    assert (await pool.fetchval("SELECT status FROM tables_index WHERE table_id = $1", tid)) == "invited"

    assert doc["links"] == {
        "organiser": "http://arena.test:9000/organise/",
        "player": "http://arena.test:9000/play/",
        "table": f"http://arena.test:9000/play/table.html?id={tid}",
        "referee": "http://arena.test:9000/referee/",
        "championship": f"http://arena.test:9000/watch/championship.html?id={cid}",
        "watch": "http://arena.test:9000/watch/",
    }

    # The passwords are stored as argon2id hashes only.
    hashes = [r["password_hash"] for r in await pool.fetch("SELECT password_hash FROM credentials")]
    assert len(hashes) == 4 and all(h.startswith("$argon2id$") for h in hashes)     # with the caller's
    assert not any(p["password"] in h for h in hashes for p in (player, organiser, referee))

    # The person signs in with the printed password and finds the invitation in his lobby; he accepts it
    # and the table starts, his turns with a clock (a table he leaves ends: turns play themselves, then it is
    # abandoned).
    assert (await sign_in(browser, player["login"], player["password"] + "x")).status_code == 401
    r = await sign_in(browser, player["login"], player["password"])
    assert r.status_code == 200, r.text
    assert (r.json()["user_id"], r.json()["roles"]) == (player["user_id"], [])
    lobby = (await browser.get("/me/lobby")).json()
    assert [x["table_id"] for x in lobby["invitations"]] == [tid] and lobby["live"] == []
    r = await browser.post(f"/tables/{tid}/accept", headers={CSRF_HEADER: browser.cookies[CSRF_COOKIE]})
    assert r.status_code == 200 and r.json()["status"] == "live", r.text
    table = await platform.tables.load(tid)
    assert (table.opened.turn_seconds, table.opened.on_timeout, table.opened.bot_pace) == (120.0, "auto_play", 1.0)
    work = pending_work(table)
    assert (work.kind, work.seat != 0) == ("bot", True) or (work.kind, work.seat) == ("clock", 0)
    view = await browser.get(f"/tables/{tid}/view")
    assert view.status_code == 200 and view.json()["seat"] == 0

    # The referee: the platform's referee role, and at his desk the call of the table he proposed, where the
    # demo's caller (seat 0, at his own turn or waiting for it, with no clock) asks to leave.
    call = doc["call"]
    called = await platform.tables.load(call["table_id"])
    assert called.opened is not None and called.opened.turn_seconds is None
    assert called.opened.opened_by == referee["user_id"] and called.seats[0] == call["caller"]
    assert [(c.seat, c.reason, c.open) for c in called.calls] == [(0, "connection_loss", True)]
    assert call["caller"] not in {player["user_id"], organiser["user_id"], referee["user_id"]}
    r = await sign_in(browser, referee["login"], referee["password"])
    assert r.status_code == 200 and r.json()["roles"] == ["referee"], r.text
    queue = (await browser.get("/referee/queue")).json()
    assert [(q["table_id"], q["call"], q["reason"]) for q in queue] == [(call["table_id"], 1, "connection_loss")]

    # The organiser signs in: the platform's organiser role, and the championship is listed.
    r = await sign_in(browser, organiser["login"], organiser["password"])
    assert r.status_code == 200, r.text
    assert (r.json()["user_id"], r.json()["roles"]) == (organiser["user_id"], ["organiser"])
    listed = (await browser.get("/championships")).json()
    assert [(x["championship_id"], x["status"], x["teams"]) for x in listed] == [(cid, "running", 8)]


async def test_running_it_again_makes_a_second_demo_and_leaves_the_first_as_it_was(capsys, url, pool, platform,
                                                                                   browser):
    first = await demo(capsys, url, "--seed", "same", "--password", "a demo secret")
    first_version = (await platform.championships.load(first["championship"]["championship_id"])).version
    second = await demo(capsys, url, "--seed", "same", "--password", "a demo secret")
    assert (second["demo"], second["player"]["login"], second["organiser"]["login"]) == (2, "demo-2",
                                                                                        "organiser-2")
    assert second["championship"]["name"] == "Demo cup 2"
    for key in ("championship_id", "tables"):
        assert second["championship"][key] != first["championship"][key]
    assert second["table"]["table_id"] != first["table"]["table_id"]
    assert second["player"]["user_id"] != first["player"]["user_id"]
    # The first is untouched: no event was added to its championship.
    assert (await platform.championships.load(first["championship"]["championship_id"])).version == first_version
    for doc in (first, second):
        state = (await platform.championships.load(doc["championship"]["championship_id"])).state
        assert (state.status, len(state.team_order), len(state.rounds)) == ("running", 8, 1)
        table = await platform.tables.load(doc["table"]["table_id"])
        assert table.seats[0] == doc["player"]["user_id"]
        for who in ("player", "organiser", "referee"):
            r = await sign_in(browser, doc[who]["login"], "a demo secret")
            assert r.status_code == 200 and r.json()["user_id"] == doc[who]["user_id"], r.text
    assert await pool.fetchval("SELECT count(*) FROM credentials") == 2 * 4           # the callers' with them
    assert await pool.fetchval("SELECT count(*) FROM tables_index") == 2 * (4 + 2)


async def test_the_text_says_the_logins_passwords_and_links_and_the_options_shape_the_demo(capsys, url,
                                                                                            platform):
    code = await asyncio.to_thread(main, ["demo", "--database-url", url, "--teams", "4", "--pace", "0.5",
                                          "--target", "41", "--login", "Saad"])
    out = capsys.readouterr().out
    assert code == 0, out
    login_line = next(line for line in out.splitlines() if line.startswith("player"))
    assert "login saad " in login_line                  # the login as it is stored and signed in with
    password = login_line.split("password ")[1].split()[0]
    account = await platform.accounts.verify("saad", password)
    assert account is not None and account.name == "Demo player"
    cid = out.split("championship.html?id=")[1].split()[0]
    tid = await platform.pool.fetchval("SELECT table_id FROM tables_index WHERE $1 = ANY(seats)", account.user_id)
    for link in ("http://127.0.0.1:8000/organise/", "http://127.0.0.1:8000/play/", "http://127.0.0.1:8000/watch/",
                 "http://127.0.0.1:8000/referee/"):
        assert link in out.split()
    champ = await platform.championships.load(cid)
    assert len(champ.state.team_order) == 4 and champ.state.settings.game_target == 41
    assert champ.run.bot_pace_seconds == 0.5
    assert len(await platform.championships.matches.tables_of(cid)) == 2
    table = await platform.tables.load(tid)
    assert table.seats[0] == account.user_id and table.proposed.bot_pace == 0.5
    referee_line = next(line for line in out.splitlines() if line.startswith("referee"))
    assert "login referee " in referee_line and "a call waits" in referee_line


@pytest.mark.parametrize("options", [["--teams", "1"], ["--teams", "17"], ["--password", "short"],
                                     ["--pace", "11"], ["--login", "x"], ["--organiser-login", "demo"],
                                     ["--referee-login", "organiser"]])
async def test_bad_options_are_refused_before_anything_is_made(capsys, url, pool, options):
    assert await asyncio.to_thread(main, ["demo", "--database-url", url, *options]) == 2
    assert "baloot demo:" in capsys.readouterr().err
    assert await pool.fetchval("SELECT count(*) FROM users") == 0
    assert await pool.fetchval("SELECT count(*) FROM events") == 0


def test_the_help_says_what_a_second_run_does(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")                  # one line per paragraph: no word broken at a hyphen
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["demo", "--help"])
    assert done.value.code == 0
    shown = capsys.readouterr().out
    assert "demo-2" in shown and "referee-2" in shown and "nothing made before is changed" in shown
