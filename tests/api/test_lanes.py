"""The command route's lane (``services/api/lanes.py``): it answers a plain command exactly as Litestar's route
would, and hands everything else to Litestar, whose refusals then are the only ones a client sees.

Litestar's own answer is had by a request the lane never takes: the same command with ``?seat=`` (a query
string). ``HotRoutes.taken`` counts the lane's answers, so each test knows which path answered.
"""

from __future__ import annotations

import pytest

from services.api.guards import MAX_BODY
from services.api.lanes import HotRoutes
from tests.api.conftest import open_table
from tests.api.test_bad_input import stored
from tests.api.test_tables import assert_problem


async def _turn(api, tid: str, players) -> tuple[int, dict, dict]:
    """The seat to act, its headers and its own view."""
    public = (await api.get(f"/tables/{tid}/view", headers=players[0][1])).json()
    seat = public["deal"]["turn"]
    mine = (await api.get(f"/tables/{tid}/view", headers=players[seat][1])).json()
    return seat, players[seat][1], mine


def _headers(r) -> list[tuple[str, str]]:
    return sorted((k.lower(), v) for k, v in r.headers.items())


async def test_the_lane_answers_a_command_byte_for_byte_as_litestar(api, pool, players):
    tid = await open_table(api, players)
    seat, headers, mine = await _turn(api, tid, players)
    body = {"command_id": "c-1", "action": mine["deal"]["legal_actions"][0], "expected_version": mine["version"]}
    url = f"/tables/{tid}/commands"

    taken = HotRoutes.taken
    first = await api.post(url, json=body, headers=headers)
    assert first.status_code == 200, first.text
    assert HotRoutes.taken == taken + 1
    assert first.json()["replayed"] is False and first.json()["version"] > mine["version"]

    # The same command again, once by the lane and once by Litestar: both replays of one state.
    by_lane = await api.post(url, json=body, headers=headers)
    assert HotRoutes.taken == taken + 2
    by_litestar = await api.post(f"{url}?seat={seat}", json=body, headers=headers)
    assert HotRoutes.taken == taken + 2
    assert by_lane.status_code == by_litestar.status_code == 200
    assert by_lane.json()["replayed"] is True
    assert by_lane.content == by_litestar.content
    assert _headers(by_lane) == _headers(by_litestar)
    assert "content-security-policy" in dict(_headers(by_lane))


async def test_a_refused_command_on_the_lane_is_the_routes_problem_and_stores_nothing(api, pool, players):
    tid = await open_table(api, players)
    seat, headers, mine = await _turn(api, tid, players)
    other = players[(seat + 1) % 4][1]
    before, taken = await stored(pool), HotRoutes.taken
    action = mine["deal"]["legal_actions"][0]
    # Not your turn (another seat's player sends the legal action of the seat to act).
    r = await api.post(f"/tables/{tid}/commands", json={"command_id": "x-1", "action": action}, headers=other)
    assert r.status_code in (409, 422), r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    # A stale version.
    r = await api.post(f"/tables/{tid}/commands", headers=headers,
                       json={"command_id": "x-2", "action": action, "expected_version": mine["version"] - 1})
    assert_problem(r, 409, "stale_version")
    assert "content-security-policy" in r.headers
    assert await stored(pool) == before and HotRoutes.taken == taken


@pytest.mark.parametrize("content, rule, field", [
    (b'{"command_id": ', "malformed_body", None),                                       # not JSON
    (b'{"command_id": "a", "action": {"type": "sawa"}, "cheat": 1}', "invalid_field", "cheat"),   # unknown field
    (b'{"command_id": "a", "action": {"type": "sawa"}, "expected_version": "3"}', "invalid_field",
     "expected_version"),                                                                 # no coercion
    (b'{"command_id": "a\\u0000b", "action": {"type": "sawa"}}', "invalid_field", None),     # NUL (the body guard)
])
async def test_a_body_the_lane_cannot_take_is_refused_by_litestar(api, pool, players, content, rule, field):
    tid = await open_table(api, players)
    before, taken = await stored(pool), HotRoutes.taken
    r = await api.post(f"/tables/{tid}/commands", content=content,
                       headers={**players[0][1], "content-type": "application/json"})
    body = assert_problem(r, 400, rule)
    if field is not None:
        assert body.get("field") == field, body
    assert await stored(pool) == before and HotRoutes.taken == taken


async def test_who_asks_is_settled_before_the_body_and_an_oversized_body_is_litestars_413(api, pool, players):
    tid = await open_table(api, players)
    before, taken = await stored(pool), HotRoutes.taken
    url = f"/tables/{tid}/commands"
    r = await api.post(url, content=b'{"command_id": ', headers={"Authorization": "Bearer stolen",
                                                                   "content-type": "application/json"})
    assert_problem(r, 401, "bad_token")
    r = await api.post(url, content=b'{"command_id": "a", "pad": "' + b"x" * MAX_BODY + b'"}',
                       headers={**players[0][1], "content-type": "application/json"})
    assert r.status_code == 413, r.text
    assert await stored(pool) == before and HotRoutes.taken == taken
