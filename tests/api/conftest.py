"""The API under test: the real app on this test's PostgreSQL schema, driven over HTTP (ASGI in-process)."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from services.api.app import create_app
from services.db import schema_url


def pytest_configure(config):
    # The database fixtures: one plugin for the whole run, loaded only where tests need a database.
    config.pluginmanager.import_plugin("tests.db_fixtures")


@pytest.fixture
async def api(database_url, db_schema):
    app = create_app(schema_url(database_url, db_schema), rate_limit=("second", 10_000))
    async with AsyncTestClient(app=app, timeout=30) as client:
        yield client


async def new_user(api, name: str, kind: str = "human") -> tuple[str, dict]:
    r = await api.post("/users", json={"name": name, "kind": kind})
    assert r.status_code == 201, r.text
    body = r.json()
    return body["user_id"], {"Authorization": f"Bearer {body['token']}"}


@pytest.fixture
async def referee(api) -> dict:
    """A user who opens tables without sitting at them: their referee (headers)."""
    return (await new_user(api, "referee"))[1]


@pytest.fixture
async def players(api):
    """Four users: [(user_id, headers)] for seats 0-3."""
    return [await new_user(api, f"player {i}") for i in range(4)]


async def open_table(api, players, referee: dict | None = None, **options) -> str:
    """A table proposed by the first player (or by ``referee``, not seated: its referee) and accepted by the
    others: the game has started."""
    body = {"seats": [uid for uid, _ in players], **options}
    r = await api.post("/tables", json=body, headers=referee or players[0][1])
    assert r.status_code == 201, r.text
    table_id = r.json()["table_id"]
    for uid, headers in players:
        if uid in r.json()["waiting"]:
            answer = await api.post(f"/tables/{table_id}/accept", headers=headers)
            assert answer.status_code == 200, answer.text
    return table_id


__all__ = ["schema_url", "new_user", "open_table"]
