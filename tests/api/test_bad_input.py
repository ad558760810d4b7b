"""Bad input is a 4xx problem document, never a 500, and stores nothing.

The payloads are the review's own: JSON nested 1,000 levels deep (about 2 KB), U+0000 in names, seat ids,
reasons and path segments, and ``/live?after=2^63``.
"""

from __future__ import annotations

import json
import logging

import pytest

from tests.api.conftest import new_user, open_table
from tests.api.test_tables import assert_problem

DEEP = b'{"name": ' + b"[" * 1000 + b"]" * 1000 + b"}"
NUL = "a\u0000b"


@pytest.fixture
async def world(api, players):
    """A live table and a championship the bad requests aim at."""
    tid = await open_table(api, players)
    r = await api.post("/championships", json={"command_id": "cup", "name": "Cup"}, headers=players[0][1])
    assert r.status_code == 201, r.text
    return {"table": tid, "championship": r.json()["championship_id"], "headers": players[0][1],
            "seats": [uid for uid, _ in players]}


async def stored(pool) -> tuple[int, int, int]:
    return (await pool.fetchval("SELECT count(*) FROM events"), await pool.fetchval("SELECT count(*) FROM users"),
            await pool.fetchval("SELECT count(*) FROM tokens"))


@pytest.fixture
def no_errors_logged(caplog):
    caplog.set_level(logging.ERROR, logger="baloot.api")
    yield
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


ENDPOINTS = ["/users", "/tables", "/tables/{table}/commands", "/tables/{table}/rulings", "/championships",
             "/championships/{championship}/teams", "/audit"]


@pytest.mark.parametrize("path", ENDPOINTS)
async def test_json_nested_a_thousand_levels_deep_is_a_400(api, pool, world, path, no_errors_logged):
    assert len(DEEP) < 2100
    before = await stored(pool)
    r = await api.post(path.format(**world), content=DEEP,
                       headers={**world["headers"], "content-type": "application/json"})
    body = assert_problem(r, 400, "malformed_body")
    assert "nested" in body["detail"]
    assert await stored(pool) == before


async def test_deep_json_inside_a_string_is_only_text(api):
    r = await api.post("/users", json={"name": "[" * 60 + "{" * 19})
    assert r.status_code == 201, r.text


@pytest.mark.parametrize("path, body", [
    ("/users", {"name": NUL}),
    ("/users", {"name": "ok", "kind": NUL}),
    ("/tables", {"seats": [NUL, NUL, NUL, NUL]}),
    ("/tables", {"seats": "{seats}", "switches": {NUL: True}}),
    ("/tables/{table}/commands", {"command_id": NUL, "action": {"type": "sawa"}}),
    ("/tables/{table}/rulings", {"command_id": "annul", "ruling": {"type": "annul_deal", "reason": NUL}}),
    ("/championships", {"command_id": "cup-2", "name": NUL}),
    ("/championships/{championship}/teams", {"command_id": "team", "players": [NUL, "{seat0}"]}),
    ("/championships/{championship}/finish", {"command_id": "end", "reason": NUL}),
])
async def test_nul_in_any_string_is_a_400(api, pool, world, path, body, no_errors_logged):
    text = json.dumps(body).replace('"{seats}"', json.dumps(world["seats"])).replace("{seat0}", world["seats"][0])
    before = await stored(pool)
    r = await api.post(path.format(**world), content=text.encode(),
                       headers={**world["headers"], "content-type": "application/json"})
    assert_problem(r, 400, "invalid_field")
    assert await stored(pool) == before


async def test_an_escaped_backslash_before_u0000_is_not_a_nul(api):
    r = await api.post("/users", json={"name": "C:\\u0000"})
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "C:\\u0000"


@pytest.mark.parametrize("path", [
    "/tables/%00/view", "/tables/a%00b/live", "/tables/%00/deals", "/tables/%00/state?at=0",
    "/championships/%00", "/championships/%00/standings", "/tables?status=live%00",
])
async def test_nul_in_the_path_or_query_is_a_400_before_the_database(api, pool, world, path, no_errors_logged):
    before = await stored(pool)
    assert_problem(await api.get(path, headers=world["headers"]), 400, "malformed_path")
    r = await api.post("/tables/%00/commands", json={"command_id": "x", "action": {"type": "sawa"}},
                       headers=world["headers"])
    assert_problem(r, 400, "malformed_path")
    assert await stored(pool) == before


@pytest.mark.parametrize("after", [2**63, 2**31])
async def test_live_after_beyond_any_version_is_a_400(api, world, after, no_errors_logged):
    r = await api.get(f"/tables/{world['table']}/live", params={"after": after}, headers=world["headers"])
    assert_problem(r, 400, "invalid_field")


async def test_nul_in_a_bot_name_made_through_the_api_is_refused(api, pool):
    _, h = await new_user(api, "fine")
    r = await api.post("/users", json={"name": "bot\u0000", "kind": "bot"}, headers=h)
    assert_problem(r, 400, "invalid_field")
    assert await pool.fetchval("SELECT count(*) FROM users") == 1


async def test_who_is_asking_is_settled_before_the_body_is_read(api, world, pool):
    """A malformed body with no token, or a wrong one, is refused for the token (401), not for the body: the
    caller is settled first; with a good token the same body is a 400 naming what is wrong with it."""
    before = await stored(pool)
    url = f"/tables/{world['table']}/commands"
    for headers in ({}, {"Authorization": "Bearer not-a-token"}):
        r = await api.post(url, content=b'{"command_id": ', headers={**headers, "content-type": "application/json"})
        assert_problem(r, 401, "bad_token")
    r = await api.post(url, content=b'{"command_id": ', headers={**world["headers"], "content-type": "application/json"})
    assert_problem(r, 400, "malformed_body")
    assert await stored(pool) == before
