"""Rate limits on the resolved user and the client address, tokens that expire and
can be revoked, a bounded user cache. Real app, real PostgreSQL."""

from __future__ import annotations

import asyncio
import datetime as dt
import shutil
from pathlib import Path

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from services.api.app import create_app
from services.api.auth import Authenticator
from services.tokens import create_user, tokens_stream
from services.db import drop_schema, schema_url
from services.eventstore import CHANNEL
from services.eventstore.listen import Listener
from services.eventstore.migrations import MIGRATIONS_DIR, migrate
from tests.api.conftest import new_user
from tests.api.test_tables import assert_problem

HUGE = ("second", 100_000)


def app_with(database_url, db_schema, **limits):
    return create_app(schema_url(database_url, db_schema), **{"rate_limit": HUGE, **limits})


def bearer(headers: dict) -> str:
    return headers["Authorization"].removeprefix("Bearer ")


def assert_rate_limited(r, rule: str = "rate_limited") -> dict:
    body = assert_problem(r, 429, rule)
    assert int(r.headers["retry-after"]) >= 1
    return body


# ---------------------------------------------------------------- 1. rate limits


async def test_a_token_written_in_other_case_or_spacing_counts_against_its_user(database_url, db_schema):
    app = app_with(database_url, db_schema, rate_limit=("minute", 5), auth_fail_limit=("minute", 1000))
    async with AsyncTestClient(app=app, timeout=30) as client:
        _, first = await new_user(client, "first")
        _, second = await new_user(client, "second")
        token = bearer(first)
        spellings = [f"Bearer {token}", f"bearer {token}", f"BEARER  {token}", f"  Bearer {token}  ",
                     f"bEaReR \t{token}"]
        for header in spellings:
            assert (await client.get("/me", headers={"Authorization": header})).status_code == 200, header
        assert_rate_limited(await client.get("/me", headers={"Authorization": f"bearer   {token}"}))
        assert (await client.get("/me", headers=second)).status_code == 200       # another user, another bucket


async def test_made_up_tokens_count_against_the_address(database_url, db_schema, pool):
    app = app_with(database_url, db_schema, auth_fail_limit=("minute", 10))
    async with AsyncTestClient(app=app, timeout=30) as client:
        _, good = await new_user(client, "good")
        statuses = [(await client.get("/me", headers={"Authorization": f"Bearer made-up-{i}"})).status_code
                    for i in range(50)]
        assert statuses == [401] * 10 + [429] * 40
        assert_rate_limited(await client.get("/me", headers={"Authorization": "Bearer made-up-again"}))
        # Guessing from this address is shut off for the window; a valid token of the same address is not
        # refused for the guesser's failures (security round 3, item 6).
        assert (await client.get("/me", headers=good)).status_code == 200
        assert_rate_limited(await client.get("/me", headers={"Authorization": "Bearer one-more-guess"}))
        # Requests without a token are not authentication failures.
        assert (await client.get("/health")).status_code == 200


async def test_account_creation_is_limited_per_address(database_url, db_schema, pool):
    app = app_with(database_url, db_schema, signup_limit=("minute", 3))
    async with AsyncTestClient(app=app, timeout=30) as client:
        for i in range(3):
            await new_user(client, f"user {i}")
        body = assert_rate_limited(await client.post("/users", json={"name": "one too many"}))
        assert body["instance"] == "/users"
        assert await pool.fetchval("SELECT count(*) FROM users") == 3
        assert await pool.fetchval("SELECT count(*) FROM tokens") == 3


async def test_the_limits_come_from_the_environment(database_url, db_schema, monkeypatch):
    monkeypatch.setenv("BALOOT_RATE_LIMIT", "2")
    monkeypatch.setenv("BALOOT_RATE_UNIT", "minute")
    monkeypatch.setenv("BALOOT_SIGNUP_LIMIT", "1")
    monkeypatch.setenv("BALOOT_AUTH_FAIL_LIMIT", "1")
    app = create_app(schema_url(database_url, db_schema))
    limits = app.state.limits
    assert (limits.requests.limit, limits.requests.seconds) == (2, 60)
    assert (limits.signups.limit, limits.signups.seconds) == (1, 60)
    assert (limits.failed_auth.limit, limits.failed_auth.seconds) == (1, 60)
    async with AsyncTestClient(app=app, timeout=30) as client:
        _, h = await new_user(client, "only one")
        assert_rate_limited(await client.post("/users", json={"name": "second"}))
        assert (await client.get("/me", headers=h)).status_code == 200
        assert (await client.get("/me", headers=h)).status_code == 200
        assert_rate_limited(await client.get("/me", headers=h))


async def test_the_user_is_resolved_once_per_request(database_url, db_schema):
    app = app_with(database_url, db_schema)
    async with AsyncTestClient(app=app, timeout=30) as client:
        uid, h = await new_user(client, "counted")
        auth = app.state.auth
        resolved = []
        resolve = auth.resolve

        async def counting(header):
            resolved.append(header)
            return await resolve(header)

        auth.resolve = counting
        r = await client.get("/me", headers=h)
        assert r.status_code == 200 and r.json()["user_id"] == uid
        assert len(resolved) == 1
        assert_problem(await client.get("/me", headers={"Authorization": "Bearer nobody"}), 401, "bad_token")
        assert len(resolved) == 2


# ---------------------------------------------------------------- 2. tokens that expire and can be revoked


async def test_a_new_user_gets_a_token_that_expires(api):
    r = await api.post("/users", json={"name": "newcomer"})
    assert r.status_code == 201, r.text
    body = r.json()
    expires = dt.datetime.fromisoformat(body["expires_at"])
    now = dt.datetime.now(dt.timezone.utc)
    assert dt.timedelta(days=29, hours=23) < expires - now <= dt.timedelta(days=30)
    assert (await api.get("/me", headers={"Authorization": f"Bearer {body['token']}"})).json()["name"] == "newcomer"


async def test_token_lifetime_comes_from_baloot_token_days(api, monkeypatch):
    monkeypatch.setenv("BALOOT_TOKEN_DAYS", "2")
    _, h = await new_user(api, "short-lived")
    r = await api.post("/tokens", headers=h)
    assert r.status_code == 201, r.text
    left = dt.datetime.fromisoformat(r.json()["expires_at"]) - dt.datetime.now(dt.timezone.utc)
    assert dt.timedelta(days=1, hours=23) < left <= dt.timedelta(days=2)


async def test_a_logged_in_user_gets_another_token_and_both_work(api, pool):
    uid, h = await new_user(api, "two devices")
    r = await api.post("/tokens", headers=h)
    assert r.status_code == 201, r.text
    other = {"Authorization": f"Bearer {r.json()['token']}"}
    assert r.json()["user_id"] == uid
    assert (await api.get("/me", headers=h)).json()["user_id"] == uid
    assert (await api.get("/me", headers=other)).json()["user_id"] == uid
    assert await pool.fetchval("SELECT count(*) FROM tokens WHERE user_id = $1", uid) == 2
    assert_problem(await api.post("/tokens"), 401, "bad_token")


async def test_deleting_the_current_token_revokes_it_at_once(api):
    uid, h = await new_user(api, "leaving")
    other = {"Authorization": f"Bearer {(await api.post('/tokens', headers=h)).json()['token']}"}
    assert (await api.get("/me", headers=h)).status_code == 200          # cached now
    r = await api.delete("/tokens/current", headers=h)
    assert r.status_code == 204, r.text
    body = assert_problem(await api.get("/me", headers=h), 401, "bad_token")
    assert body["detail"] == "token revoked"
    assert (await api.get("/me", headers=other)).json()["user_id"] == uid  # only the token used


async def test_revoke_all_revokes_every_token_of_the_caller(api, players):
    uid, h = await new_user(api, "compromised")
    others = [{"Authorization": f"Bearer {(await api.post('/tokens', headers=h)).json()['token']}"}
              for _ in range(2)]
    for headers in (h, *others):
        assert (await api.get("/me", headers=headers)).status_code == 200
    r = await api.post("/tokens/revoke-all", headers=others[0])
    assert r.status_code == 200, r.text
    assert r.json() == {"revoked": 3}
    for headers in (h, *others):
        assert assert_problem(await api.get("/me", headers=headers), 401, "bad_token")["detail"] == "token revoked"
    assert (await api.get("/me", headers=players[0][1])).status_code == 200   # other users untouched


async def test_an_expired_token_is_refused(api, pool):
    uid, h = await new_user(api, "late")
    await pool.execute("UPDATE tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1", uid)
    body = assert_problem(await api.get("/me", headers=h), 401, "bad_token")
    assert body["detail"] == "token expired"
    assert assert_problem(await api.get("/me", headers={"Authorization": "Bearer nobody"}), 401,
                          "bad_token")["detail"] == "this token belongs to no user"


async def test_a_cached_token_stops_at_its_expiry(pool):
    user, token = await create_user(pool, "cached")
    auth = Authenticator(pool)
    session = await auth.resolve(f"Bearer {token}")
    # The entry is trusted for a while, but never past the expiry it was read with.
    auth._cache[session.token_hash] = session.__class__(session.user, session.token_hash,
                                                        dt.datetime.now(dt.timezone.utc))
    with pytest.raises(Exception) as refused:
        await auth.resolve(f"Bearer {token}")
    assert refused.value.rule == "bad_token" and refused.value.detail == "token expired"


async def test_revocation_reaches_another_process_within_the_recheck_time(pool):
    user, token = await create_user(pool, "two processes")
    now = [1000.0]
    here = Authenticator(pool)
    there = Authenticator(pool, recheck_seconds=30, clock=lambda: now[0])     # another API process
    header = f"Bearer {token}"
    session = await there.resolve(header)
    await here.resolve(header)
    await here.revoke(session)
    with pytest.raises(Exception) as refused:
        await here.resolve(header)                            # at once where it was revoked
    assert refused.value.detail == "token revoked"
    now[0] += 29
    assert (await there.resolve(header)).user == user         # trusted from its cache for up to 30 s ...
    now[0] += 1.5
    with pytest.raises(Exception) as refused:
        await there.resolve(header)                           # ... then asked again
    assert refused.value.detail == "token revoked"


async def test_with_the_processes_listener_a_revocation_reaches_another_process_at_once(pool, database_url, db_schema):
    user, token = await create_user(pool, "two listening processes")
    listener = Listener()
    await listener.start(schema_url(database_url, db_schema))
    try:
        now = [1000.0]
        there = Authenticator(pool, clock=lambda: now[0], listener=listener)     # another API process
        assert there.recheck_seconds == Authenticator.LISTENING_RECHECK
        header = f"Bearer {token}"
        session = await there.resolve(header)
        heard = asyncio.Event()
        listener.watch(tokens_stream(user.user_id), heard.set)
        await Authenticator(pool).revoke(session)                  # revoked by this process
        await asyncio.wait_for(heard.wait(), 30)                   # (the notification has reached ``there``)
        with pytest.raises(Exception) as refused:
            await there.resolve(header)                            # at once, its clock never moved
        assert refused.value.detail == "token revoked"

        # Revoked behind the processes' backs (no notification), then a notification naming nothing (one
        # the listener sends itself after losing its connection): every cached token is asked again within
        # RECHECK, not LISTENING_RECHECK.
        other, token2 = await create_user(pool, "another")
        await there.resolve(f"Bearer {token2}")
        await pool.execute("UPDATE tokens SET revoked_at = now() WHERE user_id = $1", other.user_id)
        now[0] += 100
        assert (await there.resolve(f"Bearer {token2}")).user == other   # trusted from its cache
        heard.clear()
        listener.watch("anything", heard.set)
        await pool.execute(f"NOTIFY {CHANNEL}")
        await asyncio.wait_for(heard.wait(), 30)
        now[0] += Authenticator.RECHECK - 1
        assert (await there.resolve(f"Bearer {token2}")).user == other
        now[0] += 1.5
        with pytest.raises(Exception) as refused:
            await there.resolve(f"Bearer {token2}")
        assert refused.value.detail == "token revoked"
    finally:
        await listener.stop()


async def test_users_made_by_code_keep_working(api, pool):
    made, token = await create_user(pool, "made by a script")
    r = await api.get("/me", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200 and r.json() == {"user_id": made.user_id, "name": "made by a script",
                                                 "kind": "human"}


async def test_existing_users_keep_their_token_through_the_migration(database_url, tmp_path: Path):
    before = tmp_path / "before"
    before.mkdir()
    for path in sorted(MIGRATIONS_DIR.glob("*.sql")):
        if path.name < "0006":
            shutil.copy(path, before)
    schema = "test_tokens_migration_" + tmp_path.name[-8:].replace("-", "_")
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(f'CREATE SCHEMA "{schema}"')
        await conn.execute(f'SET search_path TO "{schema}"')
        await migrate(conn, before)
        from services.tokens import token_hash
        await conn.execute("INSERT INTO users (user_id, name, kind, token_hash) VALUES ('u1', 'old timer', "
                           "'human', $1)", token_hash("old-token"))
        await migrate(conn)
        row = await conn.fetchrow("SELECT user_id, expires_at, revoked_at FROM tokens")
        assert row["user_id"] == "u1" and row["revoked_at"] is None
        assert row["expires_at"] - dt.datetime.now(dt.timezone.utc) > dt.timedelta(days=29)
        pool = await asyncpg.create_pool(database_url, min_size=1, max_size=2,
                                         server_settings={"search_path": schema})
        try:
            session = await Authenticator(pool).resolve("Bearer old-token")
            assert session.user.name == "old timer"
        finally:
            await pool.close()
    finally:
        await conn.close()
        await drop_schema(database_url, schema)


# ---------------------------------------------------------------- 3. bounded caches


async def test_the_user_cache_is_bounded(pool):
    auth = Authenticator(pool, cache_size=3)
    tokens = [(await create_user(pool, f"user {i}"))[1] for i in range(6)]
    for token in tokens:
        await auth.resolve(f"Bearer {token}")
    assert auth.cached == 3
    assert (await auth.resolve(f"Bearer {tokens[0]}")).user.name == "user 0"     # evicted, read again
    assert auth.cached == 3


def test_the_rate_limit_buckets_are_bounded():
    from services.api.limits import RateLimiter
    now = [0.0]
    limiter = RateLimiter("minute", 5, max_keys=100, clock=lambda: now[0])
    for i in range(1000):
        limiter.hit(f"address {i}")
    assert limiter.tracked == 100
    now[0] += 61
    limiter.hit("one more")
    assert limiter.tracked == 1           # windows that ended are dropped


async def test_a_user_holds_a_bounded_number_of_valid_tokens(api, pool):
    from services.api.routes_auth import MAX_LIVE_TOKENS
    uid, h = await new_user(api, "hoarder")
    for _ in range(MAX_LIVE_TOKENS - 1):
        r = await api.post("/tokens", headers=h)
        assert r.status_code == 201
    assert_problem(await api.post("/tokens", headers=h), 409, "too_many_tokens")
    assert await pool.fetchval("SELECT count(*) FROM tokens WHERE user_id = $1", uid) == MAX_LIVE_TOKENS
    assert (await api.delete("/tokens/current", headers=h)).status_code == 204      # one revoked: room for one
    last = {"Authorization": f"Bearer {r.json()['token']}"}
    assert (await api.post("/tokens", headers=last)).status_code == 201


async def test_users_public_names_are_listed_by_id(api):
    alice, headers = await new_user(api, "Alice")
    bob, _ = await new_user(api, "Bob")
    r = await api.post("/tables", json={"seats": [alice, "bot", bob, "bot"], "bot_level": "hard"}, headers=headers)
    bot = (await api.get(f"/tables/{r.json()['table_id']}/view", headers=headers)).json()["seats"][1]
    r = await api.get("/users", params={"ids": f"{bot},{alice},{alice},nobody"}, headers=headers)
    assert r.status_code == 200, r.text
    assert sorted((u["user_id"], u["name"], u["kind"]) for u in r.json()) == sorted(
        [(alice, "Alice", "human"), (bot, "Bot (hard)", "bot")])
    assert all(set(u) == {"user_id", "name", "kind"} for u in r.json())        # never a token
    too_many = ",".join(f"u{i}" for i in range(101))
    assert_problem(await api.get("/users", params={"ids": too_many}, headers=headers), 400, "invalid_field")
    assert_problem(await api.get("/users", params={"ids": "a;b"}, headers=headers), 400, "invalid_field")
    assert_problem(await api.get("/users", params={"ids": alice}), 401, "bad_token")
