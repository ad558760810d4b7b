"""The accounts' security review (issue 45): each test names the item it covers, and fails without its fix.

Real PostgreSQL, the real app; bursts are concurrent requests (``asyncio.gather``) against one app; where
time matters the sign-in throttle's clock is injected (no sleeps)."""

from __future__ import annotations

import asyncio

import httpx
from litestar.testing import AsyncTestClient

from services.api.sessions import CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE
from tests.api.conftest import new_user, open_table
from tests.api.test_accounts import app_on, assert_problem, csrf, sign_up

SECRET = "a long secret"


# ---- 3. a password change ends every other session and bearer token, and their streams

async def test_3_a_password_change_ends_every_other_session_and_bearer_token(database_url, db_schema):
    async with AsyncTestClient(app=app_on(database_url, db_schema), timeout=30) as one:
        two = httpx.AsyncClient(transport=one._transport, base_url=one.base_url, timeout=30)
        await sign_up(one)
        minted = await one.post("/tokens", headers=await csrf(one))          # a bearer token from the session
        assert minted.status_code == 201, minted.text
        bearer = {"Authorization": f"Bearer {minted.json()['token']}"}
        assert (await two.post("/session", json={"login": "saad", "password": SECRET},
                               headers=await csrf(two))).status_code == 200
        assert (await one.get("/me", headers=bearer)).status_code == 200      # cached as good
        r = await one.put("/me/password", json={"current_password": SECRET, "new_password": "a newer secret"},
                          headers=await csrf(one))
        assert r.status_code == 200, r.text
        assert_problem(await two.get("/me"), 401, "bad_token")                # the other browser's session
        assert_problem(await one.get("/me", headers={**bearer, "cookie": ""}), 401, "bad_token")   # the token
        assert (await one.get("/me")).status_code == 200                      # the request's own session


async def test_3_the_first_token_of_a_token_user_ends_when_he_changes_his_password(api):
    _, first = await new_user(api, "Noura")
    r = await api.post("/me/credentials", json={"login": "noura", "password": SECRET}, headers=first)
    assert r.status_code == 200, r.text
    second = {"Authorization": f"Bearer {(await api.post('/tokens', headers=first)).json()['token']}"}
    r = await api.put("/me/password", json={"current_password": SECRET, "new_password": "a newer secret"},
                      headers=second)
    assert r.status_code == 200, r.text
    assert_problem(await api.get("/me", headers=first), 401, "bad_token")
    assert (await api.get("/me", headers=second)).status_code == 200


async def test_3_a_live_stream_on_a_token_ends_with_a_password_change(database_url, db_schema):
    from services.api.app import create_app
    from tests.api.conftest import schema_url
    from tests.api.test_tables import follow, served

    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 10_000))
    async with served(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client, \
            httpx.AsyncClient(base_url=base, timeout=30) as browser:
        players = [await new_user(client, f"p{i}") for i in range(4)]
        r = await client.post("/me/credentials", json={"login": "player0", "password": SECRET},
                              headers=players[0][1])
        assert r.status_code == 200, r.text
        tid = await open_table(client, players)
        seen: list = []
        got = asyncio.Event()
        stream = asyncio.create_task(follow(base, tid, players[0][1], seen, first=got))
        await asyncio.wait_for(got.wait(), 20)
        assert seen[-1][1] == "view"
        await browser.get("/health")
        headers = {CSRF_HEADER: browser.cookies[CSRF_COOKIE]}
        assert (await browser.post("/session", json={"login": "player0", "password": SECRET},
                                   headers=headers)).status_code == 200
        r = await browser.put("/me/password", json={"current_password": SECRET, "new_password": "a newer secret"},
                              headers=headers)
        assert r.status_code == 200, r.text
        assert await asyncio.wait_for(stream, 20) == "closed"
        assert seen[-1][1:] == ("error", {"rule": "bad_token", "detail": "token revoked"})


# ---- 10. a session token and a bearer token cannot stand in for each other, cached or not

async def test_10_a_cached_bearer_token_is_no_session_cookie_nor_the_other_way_round(database_url, db_schema):
    async with AsyncTestClient(app=app_on(database_url, db_schema), timeout=30) as browser:
        _, headers = await new_user(browser, "Fahad")
        token = headers["Authorization"].removeprefix("Bearer ")
        assert (await browser.get("/me", headers=headers)).status_code == 200        # now cached
        other = httpx.AsyncClient(transport=browser._transport, base_url=browser.base_url, timeout=30)
        other.cookies.set(SESSION_COOKIE, token)
        assert_problem(await other.get("/me"), 401, "bad_token")
        await sign_up(browser)
        session = browser.cookies[SESSION_COOKIE]
        assert (await browser.get("/me")).status_code == 200                          # now cached
        assert_problem(await other.get("/me", headers={"Authorization": f"Bearer {session}", "cookie": ""}),
                       401, "bad_token")
