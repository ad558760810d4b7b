"""Accounts people sign back into: sign up, sign in from another browser, sign out, change the password,
CSRF on every request a session cookie authenticates, one refusal for a wrong login or password, throttled."""

from __future__ import annotations

import asyncio

import argon2
import httpx
import pytest
from litestar.testing import AsyncTestClient
from litestar.testing.transport import TestClientTransport

from services.api.app import create_app
from services.api.sessions import CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE, SIGNED_IN_COOKIE
from services.cli import main
from services.db import schema_url
from tests.api.conftest import new_user

CHEAP = argon2.PasswordHasher.from_parameters(argon2.profiles.CHEAPEST)


def app_on(database_url, db_schema, **options):
    return create_app(schema_url(database_url, db_schema), rate_limit=("second", 10_000), password_hasher=CHEAP,
                      **options)


def on_app(client: AsyncTestClient, address: str = "testclient") -> TestClientTransport:
    """Another browser's way to the app ``client`` runs (in its portal, its lifespan entered), from ``address``."""

    class At(TestClientTransport):
        def parse_request(self, request):
            scope = super().parse_request(request)
            scope["client"] = (address, 50000)
            return scope

    return At(client)


@pytest.fixture
async def browsers(database_url, db_schema):
    """Two browsers (two cookie jars) on one running app."""
    async with AsyncTestClient(app=app_on(database_url, db_schema), timeout=30) as one:
        two = httpx.AsyncClient(transport=on_app(one), base_url=one.base_url, timeout=30)
        yield one, two


async def csrf(browser) -> dict:
    """What a page does first: any page load gives the CSRF cookie, which its script sends back."""
    r = await browser.get("/health")
    assert r.status_code == 200
    return {CSRF_HEADER: browser.cookies[CSRF_COOKIE]}


async def sign_up(browser, login="saad", password="a long secret", name="Saad") -> dict:
    r = await browser.post("/accounts", json={"login": login, "password": password, "name": name},
                           headers=await csrf(browser))
    assert r.status_code == 201, r.text
    return r.json()


async def counts(pool) -> tuple[int, int, int]:
    return (await pool.fetchval("SELECT count(*) FROM users"), await pool.fetchval("SELECT count(*) FROM tokens"),
            await pool.fetchval("SELECT count(*) FROM credentials"))


def assert_problem(r, status: int, rule: str, field: str | None = None) -> dict:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["rule"] == rule and r.headers["content-type"].startswith("application/problem+json")
    if field is not None:
        assert body["field"] == field
    return body


async def test_a_person_signs_up_and_signs_in_again_from_another_browser(browsers):
    one, two = browsers
    me = await sign_up(one)
    assert (me["login"], me["name"], me["via"], me["roles"]) == ("saad", "Saad", "session", [])
    cookie = one.cookies.jar
    session = next(c for c in cookie if c.name == SESSION_COOKIE)
    assert session.has_nonstandard_attr("HttpOnly") and session.get_nonstandard_attr("SameSite").lower() == "lax"
    assert not session.secure                              # plain HTTP here; over HTTPS it is Secure
    # Beside it a cookie a script may read, which tells a page only that someone signed in here.
    hint = next(c for c in cookie if c.name == SIGNED_IN_COOKIE)
    assert hint.value == "1" and not hint.has_nonstandard_attr("HttpOnly")
    # The cookie alone says who he is, on every route (no Authorization header).
    assert (await one.get("/me")).json()["user_id"] == me["user_id"]
    # Another browser: nobody until he signs in, with the login in any case.
    assert_problem(await two.get("/session"), 401, "bad_token")
    r = await two.post("/session", json={"login": "SAAD", "password": "a long secret"}, headers=await csrf(two))
    assert r.status_code == 200, r.text
    assert r.json()["user_id"] == me["user_id"]
    assert (await two.get("/session")).json()["login"] == "saad"


async def test_without_the_csrf_token_a_session_changes_nothing(browsers, pool):
    one, _ = browsers
    await sign_up(one)
    before = await counts(pool)
    for r in (await one.post("/tokens"), await one.delete("/session"),
              await one.put("/me/password", json={"current_password": "a long secret", "new_password": "x" * 12}),
              await one.post("/tables", json={"seats": ["bot"] * 4}, headers={CSRF_HEADER: "forged"})):
        assert_problem(r, 403, "csrf_token")
    assert await counts(pool) == before
    assert (await one.get("/session")).status_code == 200           # still signed in
    # Nor can another site sign him in (login CSRF): the sign-in route wants the token too.
    _, two = browsers
    r = await two.post("/session", json={"login": "saad", "password": "a long secret"})
    assert_problem(r, 403, "csrf_token")
    # A bearer token needs none: no browser sends the Authorization header by itself.
    _, headers = await new_user(two, "api client")
    assert (await two.post("/tokens", headers=headers)).status_code == 201
    assert (await one.post("/tokens", headers=headers)).status_code == 201      # even beside a session cookie


async def test_a_wrong_login_and_a_wrong_password_are_one_refusal(browsers, pool):
    one, two = browsers
    await sign_up(one)
    before = await counts(pool)
    wrong_password = await two.post("/session", json={"login": "saad", "password": "not the secret"},
                                    headers=await csrf(two))
    no_such_login = await two.post("/session", json={"login": "nobody", "password": "a long secret"},
                                   headers=await csrf(two))
    bad_login = await two.post("/session", json={"login": "a b", "password": "a long secret"},
                               headers=await csrf(two))
    bodies = [assert_problem(r, 401, "bad_credentials") for r in (wrong_password, no_such_login, bad_login)]
    assert len({(b["title"], b["detail"]) for b in bodies}) == 1
    assert SESSION_COOKIE not in two.cookies and await counts(pool) == before


async def test_wrong_passwords_are_slowed_per_login_and_address(database_url, db_schema, pool):
    app = app_on(database_url, db_schema)
    async with AsyncTestClient(app=app, timeout=30) as browser:
        await sign_up(browser)
        headers = await csrf(browser)
        for _ in range(3):
            assert_problem(await browser.post("/session", json={"login": "saad", "password": "guess one two"},
                                              headers=headers), 401, "bad_credentials")
        # Past the free failures even the right password waits (from this address): a guesser learns nothing
        # from a late success.
        r = await browser.post("/session", json={"login": "saad", "password": "a long secret"}, headers=headers)
        assert_problem(r, 429, "rate_limited")
        assert int(r.headers["retry-after"]) == 2
        # Other logins from this address are not held back (an address is only paced, past 100 an hour).
        r = await browser.post("/session", json={"login": "other", "password": "whatever it is"}, headers=headers)
        assert_problem(r, 401, "bad_credentials")


async def test_sign_out_ends_the_session_and_only_it(browsers, pool):
    one, two = browsers
    await sign_up(one)
    await two.post("/session", json={"login": "saad", "password": "a long secret"}, headers=await csrf(two))
    old = one.cookies[SESSION_COOKIE]
    r = await one.delete("/session", headers={CSRF_HEADER: one.cookies[CSRF_COOKIE]})
    assert r.status_code == 204
    assert SESSION_COOKIE not in one.cookies and SIGNED_IN_COOKIE not in one.cookies   # the browser dropped them
    assert (await two.get("/session")).status_code == 200            # the other browser is still in
    one.cookies.set(SESSION_COOKIE, old)                              # a stolen copy of the old cookie
    body = assert_problem(await one.get("/session"), 401, "bad_token")
    assert body["detail"] == "session revoked"


async def test_an_expired_session_is_refused(browsers, pool):
    one, _ = browsers
    await sign_up(one)
    await pool.execute("UPDATE tokens SET expires_at = now() - interval '1 second' WHERE via = 'session'")
    body = assert_problem(await one.get("/me"), 401, "bad_token")
    assert body["detail"] == "session expired"


async def test_a_session_token_is_no_bearer_token_nor_the_other_way_round(browsers):
    one, two = browsers
    await sign_up(one)
    session = one.cookies[SESSION_COOKIE]
    assert_problem(await two.get("/me", headers={"Authorization": f"Bearer {session}"}), 401, "bad_token")
    _, headers = await new_user(two, "token user")
    two.cookies.set(SESSION_COOKIE, headers["Authorization"].split()[1])
    assert_problem(await two.get("/me"), 401, "bad_token")


async def test_a_token_only_user_sets_a_password_and_changes_it(browsers, pool):
    one, two = browsers
    user_id, headers = await new_user(one, "Noura")
    r = await one.post("/me/credentials", json={"login": "noura", "password": "first secret"}, headers=headers)
    assert r.status_code == 200 and r.json()["login"] == "noura" and r.json()["name"] == "Noura"
    assert_problem(await one.post("/me/credentials", json={"login": "noura2", "password": "other secret"},
                                  headers=headers), 409, "credentials_exist")
    # Her token keeps working; a browser signs in with the password.
    assert (await one.get("/me", headers=headers)).json()["user_id"] == user_id
    assert (await two.post("/session", json={"login": "noura", "password": "first secret"},
                           headers=await csrf(two))).status_code == 200
    # A wrong current password changes nothing.
    assert_problem(await one.put("/me/password", json={"current_password": "not it at all",
                                                        "new_password": "second secret"}, headers=headers),
                   401, "bad_credentials")
    r = await one.put("/me/password", json={"current_password": "first secret", "new_password": "second secret"},
                      headers=headers)
    assert r.status_code == 200, r.text
    # The other browser's session has ended; the old password is refused, the new one accepted.
    assert (await two.get("/session")).status_code == 401
    assert (await two.post("/session", json={"login": "noura", "password": "first secret"},
                           headers=await csrf(two))).status_code == 401
    assert (await two.post("/session", json={"login": "noura", "password": "second secret"},
                           headers=await csrf(two))).status_code == 200
    assert (await one.get("/me", headers=headers)).status_code == 200      # the token she changed it with


async def test_logins_are_one_per_person_whatever_their_case_and_bad_ones_are_named(browsers, pool):
    one, two = browsers
    await sign_up(one, login="Saad")
    before = await counts(pool)
    r = await two.post("/accounts", json={"login": "ＳＡＡＤ", "password": "another secret"}, headers=await csrf(two))
    assert_problem(r, 409, "login_taken")
    for body, field in (({"login": "a b", "password": "long enough"}, "login"),
                        ({"login": "ab", "password": "long enough"}, "login"),
                        ({"login": "...", "password": "long enough"}, "login"),
                        ({"login": "noura", "password": "short"}, "password"),
                        ({"login": "noura", "password": "NOURA"}, "password"),
                        ({"login": "noura", "password": "long enough", "kind": "bot"}, None)):
        r = await two.post("/accounts", json=body, headers=await csrf(two))
        assert r.status_code == 400, (body, r.text)
        if field:
            assert r.json()["field"] == field, r.text
    assert await counts(pool) == before
    # An Arabic login is a login.
    assert (await sign_up(two, login="سعد", password="كلمة سر طويلة", name="سعد"))["login"] == "سعد"


async def test_only_the_argon2id_hash_of_a_password_is_stored(browsers, pool):
    one, _ = browsers
    await sign_up(one, password="a long secret")
    stored = await pool.fetchval("SELECT password_hash FROM credentials")
    assert stored.startswith("$argon2id$") and "a long secret" not in stored


async def test_roles_on_the_account_are_given_by_whoever_runs_the_platform(browsers, database_url, db_schema,
                                                                          capsys):
    one, _ = browsers
    await sign_up(one, login="Noura")
    url = schema_url(database_url, db_schema)
    assert await asyncio.to_thread(main, ["account", "grant", "NOURA", "organiser", "--database-url", url]) == 0
    assert "noura" in capsys.readouterr().out
    assert (await one.get("/session")).json()["roles"] == ["organiser"]
    assert await asyncio.to_thread(main, ["account", "revoke", "noura", "organiser", "--database-url", url]) == 0
    assert (await one.get("/session")).json()["roles"] == []
    assert await asyncio.to_thread(main, ["account", "grant", "nobody", "referee", "--database-url", url]) == 1


async def test_a_friend_is_found_by_his_login_and_only_by_someone_signed_in(browsers):
    one, two = browsers
    saad = await sign_up(one)
    await sign_up(two, login="Noura.K", name="Noura")
    found = await one.get("/accounts/NOURA.k")
    assert found.status_code == 200, found.text
    assert found.json()["login"] == "noura.k" and found.json()["name"] == "Noura"
    assert found.json()["user_id"] != saad["user_id"]
    assert_problem(await one.get("/accounts/nobody"), 404, "unknown_account", "login")
    assert_problem(await one.get("/accounts/a%20b"), 404, "unknown_account", "login")   # no such login can exist
    stranger = httpx.AsyncClient(transport=on_app(one), base_url=one.base_url, timeout=30)
    assert_problem(await stranger.get("/accounts/saad"), 401, "bad_token")
