"""The accounts' security review (issue 45): each test names the item it covers, and fails without its fix.

Real PostgreSQL, the real app; bursts are concurrent requests (``asyncio.gather``) against apps served by
uvicorn (Litestar's ASGI test client passes requests one at a time, so a "burst" through it races nothing);
where time matters the sign-in throttle's clock is injected (no sleeps)."""

from __future__ import annotations

import asyncio

import httpx
from litestar.testing import AsyncTestClient

from services.api.sessions import CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE
from tests.api import test_accounts
from tests.api.conftest import new_user, open_table
from tests.api.test_accounts import app_on, assert_problem, csrf, on_app, sign_up

SECRET = "a long secret"
browsers = test_accounts.browsers          # two browsers on one app (a fixture)


# ---- 3. a password change ends every other session and bearer token, and their streams

async def test_3_a_password_change_ends_every_other_session_and_bearer_token(database_url, db_schema):
    async with AsyncTestClient(app=app_on(database_url, db_schema), timeout=30) as one:
        two = httpx.AsyncClient(transport=on_app(one), base_url=one.base_url, timeout=30)
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
        other = httpx.AsyncClient(transport=on_app(browser), base_url=browser.base_url, timeout=30)
        other.cookies.set(SESSION_COOKIE, token)
        assert_problem(await other.get("/me"), 401, "bad_token")
        await sign_up(browser)
        session = browser.cookies[SESSION_COOKIE]
        assert (await browser.get("/me")).status_code == 200                          # now cached
        assert_problem(await other.get("/me", headers={"Authorization": f"Bearer {session}", "cookie": ""}),
                       401, "bad_token")


# ---- 4, 5, 11. the sign-in throttle: counted before the check, per (login, address), an address paced

class Clock:
    """The throttle's clock, moved by the test (no sleeps)."""

    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def throttled_app(database_url, db_schema, clock: Clock, **settings):
    from services.signin import SignInThrottle
    return app_on(database_url, db_schema, sign_in=SignInThrottle(clock=clock, **settings))


def at(client: AsyncTestClient, address: str) -> httpx.AsyncClient:
    """A browser at this client address, on the app ``client`` runs."""
    return httpx.AsyncClient(transport=on_app(client, address), base_url=client.base_url, timeout=30)


async def sign_in(browser, login: str, password: str):
    return await browser.post("/session", json={"login": login, "password": password}, headers=await csrf(browser))


async def test_4_a_concurrent_burst_of_wrong_passwords_gets_no_more_checks_than_the_rule(database_url, db_schema,
                                                                                          pool):
    from tests.api.test_tables import served
    clock = Clock()
    one, two = throttled_app(database_url, db_schema, clock), throttled_app(database_url, db_schema, clock)
    # Two API processes' worth of servers (uvicorn: the requests really run at once; the ASGI test client
    # would pass them one at a time), one database.
    async with served(one) as base_one, served(two) as base_two, \
            httpx.AsyncClient(base_url=base_one, timeout=30) as first, \
            httpx.AsyncClient(base_url=base_two, timeout=30) as second:
        await sign_up(first)
        h1, h2 = await csrf(first), await csrf(second)
        # 40 wrong passwords at once, half through each server.
        burst = await asyncio.gather(*(
            (first if i % 2 else second).post("/session", json={"login": "saad", "password": f"wrong guess {i}"},
                                              headers=h1 if i % 2 else h2) for i in range(40)))
        statuses = sorted(r.status_code for r in burst)
        # 3 free failures (each reserved before its check), then the next attempt waits 2 s: 3 checks.
        assert statuses == [401] * 3 + [429] * 37, statuses
        assert all(int(r.headers["retry-after"]) >= 1 for r in burst if r.status_code == 429)
        assert await pool.fetchval("SELECT failures FROM sign_in_failures WHERE login = 'saad'") == 3
        # A success clears the pair's count.
        clock.now += 2
        assert (await sign_in(first, "saad", SECRET)).status_code == 200
        assert await pool.fetchval("SELECT count(*) FROM sign_in_failures WHERE login = 'saad'") == 0


async def test_5_wrong_passwords_from_one_address_slow_that_address_not_the_owner_elsewhere(database_url, db_schema):
    clock = Clock()
    app = throttled_app(database_url, db_schema, clock)
    async with AsyncTestClient(app=app, timeout=30) as home:
        await sign_up(home)
        guesser, owner = at(home, "203.0.113.7"), at(home, "198.51.100.2")
        waits = []
        failures = 0
        while failures < 21:
            r = await sign_in(guesser, "saad", f"guess number {failures}")
            if r.status_code == 429:
                waits.append(int(r.headers["retry-after"]))
                clock.now += waits[-1]
                continue
            assert_problem(r, 401, "bad_credentials")
            failures += 1
        # Slowed, never locked: 3 free failures, then waits of 2, 4, 8, ... s up to 15 minutes.
        assert waits[:9] == [2, 4, 8, 16, 32, 64, 128, 256, 512] and set(waits[9:]) == {900}
        assert_problem(await sign_in(guesser, "saad", SECRET), 429, "rate_limited")     # the guesser waits
        r = await sign_in(owner, "saad", SECRET)                                       # the owner does not
        assert r.status_code == 200, r.text


async def test_11_wrong_sign_ins_from_an_address_only_pace_it_and_refuse_no_other_account(database_url, db_schema):
    clock = Clock()
    app = throttled_app(database_url, db_schema, clock)
    async with AsyncTestClient(app=app, timeout=30) as home:
        await sign_up(home)
        await sign_up(home, login="noura", password="her own passphrase", name="Noura")
        venue = at(home, "192.0.2.50")                      # a venue's shared Wi-Fi
        for i in range(20):
            assert_problem(await sign_in(venue, f"someone{i}", "wrong guess"), 401, "bad_credentials")
        assert (await sign_in(venue, "noura", "her own passphrase")).status_code == 200
        # Past 100 failures an hour the address is paced: one attempt every 10 s, not shut.
        for i in range(20, 101):
            assert_problem(await sign_in(venue, f"someone{i}", "wrong guess"), 401, "bad_credentials")
        r = await sign_in(venue, "saad", SECRET)
        assert_problem(r, 429, "rate_limited")
        assert 1 <= int(r.headers["retry-after"]) <= 10
        clock.now += 10
        assert (await sign_in(venue, "saad", SECRET)).status_code == 200
        # Another address is not paced at all.
        assert (await sign_in(at(home, "192.0.2.51"), "noura", "her own passphrase")).status_code == 200


# ---- 12. passwords NIST SP 800-63B refuses

async def test_12_common_repetitive_sequential_and_guessable_passwords_are_refused(browsers, pool):
    from tests.api.test_accounts import counts
    one, _ = browsers
    before = await counts(pool)
    for password in ("password", "12345678", "aaaaaaaa", " " * 8, "abcdefgh", "87654321", "abcabcabc",
                     "iloveyou2", "saad2024!", "Baloot2024", "Saad Saad"):
        r = await one.post("/accounts", json={"login": "saad", "password": password, "name": "Saad"},
                           headers=await csrf(one))
        body = assert_problem(r, 400, "invalid_field", "password")
        assert "refused" in body["detail"] or "characters" in body["detail"], body
    assert await counts(pool) == before                    # nothing stored
    await sign_up(one)                                     # a passphrase is fine, no composition rules
    r = await one.put("/me/password", json={"current_password": SECRET, "new_password": "qwertyuiop"},
                      headers=await csrf(one))
    assert_problem(r, 400, "invalid_field", "new_password")
    assert (await sign_in(one, "saad", SECRET)).status_code == 200       # unchanged


# ---- 15. display names: normalised, no controls, no copy of another person's

async def test_15_display_names_refuse_controls_and_copies_of_another_persons(database_url, db_schema, pool):
    from services.tokens import create_user
    async with AsyncTestClient(app=app_on(database_url, db_schema), timeout=30) as api:
        before = await pool.fetchval("SELECT count(*) FROM users")
        for name in ("\u202eevil", "a\u2066b\u2069", "bell\x07", "esc\x1b[31m", "left\u200e", "arabic\u061cmark",
                     "   "):
            r = await api.post("/users", json={"name": name})
            assert_problem(r, 400, "invalid_field", "name")
        assert await pool.fetchval("SELECT count(*) FROM users") == before
        r = await api.post("/users", json={"name": "  Ｆａｈａｄ  "})
        assert r.status_code == 201 and r.json()["name"] == "Fahad"      # NFKC, stripped
        assert_problem(await api.post("/users", json={"name": "fahad"}), 409, "name_taken", "name")
        r = await api.post("/accounts", json={"login": "fahad2", "password": SECRET, "name": "FAHAD"},
                           headers=await csrf(api))
        assert_problem(r, 409, "name_taken", "name")
        assert await pool.fetchval("SELECT count(*) FROM credentials") == 0
        await create_user(pool, "Fahad", "bot")                         # bots may share a name
        # A claim may not take another's name either.
        _, organiser = await new_user(api, "Organiser")
        from tests.api.test_championships import create
        from tests.api.test_team_import import post_file
        cid = await create(api, organiser)
        r = await post_file(api, cid, organiser, "team,player_1,player_2\nFalcons,+newbie,bot\n")
        assert r.status_code == 201, r.text
        code = r.json()["invited"][0]["code"]
        r = await api.post("/accounts/claim", json={"code": code, "password": SECRET, "name": "Ｆahad"},
                           headers=await csrf(api))
        assert_problem(r, 409, "name_taken", "name")
        # An import's account is named by its login: not a copy of a person's name either.
        await new_user(api, "Maryam")
        r = await post_file(api, cid, organiser, "team,player_1,player_2\nPearls,+Maryam,bot\n", command_id="i2")
        assert r.status_code == 422 and "named" in r.json()["errors"][0]["reason"], r.text


# ---- 16. look-alike logins

async def test_16_a_login_that_looks_like_an_existing_one_is_refused(browsers, pool):
    one, two = browsers
    await sign_up(one)
    cyrillic = "\u0455\u0430\u0430d"                       # Cyrillic dze and a's, Latin d: looks like "saad"
    r = await two.post("/accounts", json={"login": cyrillic, "password": SECRET, "name": "Someone"},
                       headers=await csrf(two))
    body = assert_problem(r, 409, "login_taken", "login")
    assert "looks like an existing login" in body["detail"]
    _, token_user = await new_user(two, "Token User")
    r = await two.post("/me/credentials", json={"login": "sa\u0430d", "password": SECRET}, headers=token_user)
    assert_problem(r, 409, "login_taken", "login")
    assert await pool.fetchval("SELECT count(*) FROM credentials") == 1
    assert await pool.fetchval("SELECT skeleton FROM credentials") == "saad"


# ---- 8. an organiser's imports make accounts within a budget; reserved logins nowhere

async def test_8_imports_make_accounts_within_a_daily_budget_and_no_reserved_login(database_url, db_schema, pool,
                                                                                    monkeypatch):
    from services.api.app import create_app
    from tests.api.conftest import schema_url
    from tests.api.test_championships import create
    from tests.api.test_tables import served
    from tests.api.test_team_import import post_file
    monkeypatch.setenv("BALOOT_IMPORT_ACCOUNT_LIMIT", "6")
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 10_000))
    async with served(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as api:
        _, organiser = await new_user(api, "Organiser")
        cid = await create(api, organiser)
        users = await pool.fetchval("SELECT count(*) FROM users")

        def file(logins: list[str]) -> str:
            return "team,player_1,player_2\n" + "".join(f"T {login},+{login},bot\n" for login in logins)

        r = await post_file(api, cid, organiser, file([f"pl{i}" for i in range(7)]))
        assert_problem(r, 409, "import_account_limit")
        assert await pool.fetchval("SELECT count(*) FROM users") == users            # nothing made
        # Two files of four at once: the budget of six takes one of them, whatever the race.
        both = await asyncio.gather(
            post_file(api, cid, organiser, file([f"aa{i}" for i in range(4)]), command_id="a"),
            post_file(api, cid, organiser, file([f"bb{i}" for i in range(4)]), command_id="b"))
        assert sorted(r.status_code for r in both) == [201, 409], [r.text for r in both]
        assert await pool.fetchval("SELECT count(*) FROM credentials") == 4
        # Reserved logins, and look-alikes of them, are nobody's: in a file, at sign-up, set later.
        r = await post_file(api, cid, organiser, file(["admin", "Support", "bot-7", "\u0430dmin"]), command_id="c")
        assert r.status_code == 422 and len(r.json()["errors"]) == 4, r.text
        assert all("reserved" in e["reason"] for e in r.json()["errors"])
        r = await api.post("/accounts", json={"login": "root", "password": SECRET, "name": "Root"},
                           headers=await csrf(api))
        assert_problem(r, 400, "invalid_field", "login")
        r = await api.post("/me/credentials", json={"login": "Moderator", "password": SECRET}, headers=organiser)
        assert_problem(r, 400, "invalid_field", "login")


# ---- 14. the same import sent twice at once answers like one

async def test_14_the_same_import_sent_twice_at_once_answers_like_one(database_url, db_schema, pool):
    from services.api.app import create_app
    from tests.api.conftest import schema_url
    from tests.api.test_championships import create
    from tests.api.test_tables import served
    from tests.api.test_team_import import post_file
    url = schema_url(database_url, db_schema)
    one, two = create_app(url, rate_limit=("second", 10_000)), create_app(url, rate_limit=("second", 10_000))
    async with served(one) as base_one, served(two) as base_two, \
            httpx.AsyncClient(base_url=base_one, timeout=30) as first, \
            httpx.AsyncClient(base_url=base_two, timeout=30) as second:
        _, organiser = await new_user(first, "Organiser")
        cid = await create(first, organiser)
        text = "team,player_1,player_2\nFalcons,+newbie,bot\nPearls,+omar,+badr\n"
        # Sent at once, twice to each of two API processes.
        both = await asyncio.gather(*(post_file(api, cid, organiser, text) for api in (first, second, first, second)))
        assert [r.status_code for r in both] == [201] * 4, [r.text for r in both]
        bodies = [r.json() for r in both]
        assert sorted(b["replayed"] for b in bodies) == [False, True, True, True]
        done = next(b for b in bodies if not b["replayed"])
        for b in bodies:
            assert (b["version"], b["team_ids"], b["teams"]) == (done["version"], done["team_ids"], 2)
            assert [(i["login"], i["user_id"]) for i in b["invited"]] == \
                [(i["login"], i["user_id"]) for i in done["invited"]]
        assert await pool.fetchval("SELECT count(*) FROM credentials") == 3
        teams = (await first.get(f"/championships/{cid}", headers=organiser)).json()["teams"]
        assert len(teams) == 2


async def test_4_forgotten_counts_are_swept(database_url, db_schema, pool):
    from services.signin import SignInThrottle
    clock = Clock()
    throttle = SignInThrottle(clock=clock)
    await throttle.reserve(pool, "saad", "192.0.2.1")
    await throttle.reserve(pool, "noura", "192.0.2.2")
    clock.now += 3600
    await throttle.reserve(pool, "noura", "192.0.2.2")
    await throttle.prune(pool, clock.now + 86400 - 3600)          # saad's pair a day old, noura's not
    assert await pool.fetch("SELECT login FROM sign_in_failures") == [("noura",)]
    assert await pool.fetch("SELECT address FROM sign_in_addresses") == []       # both past their hour


async def test_4_a_good_code_with_a_refused_password_does_not_clear_the_guesses_of_codes(database_url, db_schema):
    from tests.api.test_championships import create
    from tests.api.test_team_import import post_file
    clock = Clock()
    async with AsyncTestClient(app=throttled_app(database_url, db_schema, clock), timeout=30) as api:
        _, organiser = await new_user(api, "Organiser")
        cid = await create(api, organiser)
        r = await post_file(api, cid, organiser, "team,player_1,player_2\nFalcons,+newbie,bot\n")
        code = r.json()["invited"][0]["code"]

        async def claim(code: str, password: str = SECRET):
            return await api.post("/accounts/claim", json={"code": code, "password": password},
                                  headers=await csrf(api))

        for guess in ("guess-1", "guess-2"):
            assert_problem(await claim(guess), 400, "bad_invitation")
        assert_problem(await claim(code, "password"), 400, "invalid_field", "password")   # counts for nothing
        assert_problem(await claim("guess-3"), 400, "bad_invitation")                      # the 3rd free one
        assert_problem(await claim("guess-4"), 429, "rate_limited")
