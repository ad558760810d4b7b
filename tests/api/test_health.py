"""/health answers 200 only while the database answers; a database away is a 503 problem, not a 500."""

from __future__ import annotations

import asyncio
import socket

import pytest

from services.api.auth import Authenticator
from services.db import create_pool

pytestmark = pytest.mark.asyncio


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _away_pool():
    return await create_pool(f"postgresql://postgres@127.0.0.1:{closed_port()}/nowhere", min_size=0, max_size=1)


async def in_app(api, fn, *args):
    """Run ``fn(*args)`` on the app's event loop (the test client serves the app from its own thread)."""
    return await asyncio.to_thread(api.blocking_portal.call, fn, *args)


async def away_pool(api):
    """A pool whose every connection attempt is refused (min_size 0: it connects only when used)."""
    return await in_app(api, _away_pool)


async def test_health_is_200_while_the_database_answers(api):
    r = await api.get("/health")
    assert r.status_code == 200
    assert r.json() == {"status": "ok", "database": "ok"}


async def test_health_is_a_503_problem_when_the_database_is_away(api):
    state = api.app.state.platform
    pool, state.pool = state.pool, await away_pool(api)
    try:
        r = await api.get("/health")
    finally:
        await in_app(api, state.pool.close)
        state.pool = pool
    assert r.status_code == 503
    assert r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert body["rule"] == "database_unavailable" and body["status"] == 503
    assert body["instance"] == "/health"
    assert (await api.get("/health")).status_code == 200          # the database answers again


async def test_a_request_meeting_a_database_away_is_a_503_problem_with_retry_after(api, connect):
    state = api.app.state.platform
    pool, state.pool = state.pool, await away_pool(api)
    try:
        r = await api.post("/users", json={"name": "late", "kind": "human"})
    finally:
        await in_app(api, state.pool.close)
        state.pool = pool
    assert r.status_code == 503
    assert r.json()["rule"] == "database_unavailable"
    assert int(r.headers["retry-after"]) >= 1
    conn = await connect()
    assert await conn.fetchval("SELECT count(*) FROM users WHERE name = 'late'") == 0


async def test_authentication_meeting_a_database_away_is_a_503_not_a_401(api):
    state = api.app.state
    dead = await away_pool(api)
    auth, state.auth = state.auth, Authenticator(dead)
    try:
        r = await api.get("/users", headers={"Authorization": "Bearer some-token"})
    finally:
        state.auth = auth
        await in_app(api, dead.close)
    assert r.status_code == 503
    assert r.json()["rule"] == "database_unavailable"
