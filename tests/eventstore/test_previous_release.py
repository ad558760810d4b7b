"""A database made by the previous release migrates, its streams replay, and the API answers about it
what that release answered (``tests/data/previous-release``: its dump and its answers).

Every answer of then must still be given: an answer may have gained fields, but none of what it said may
be missing or different. The dump's tokens are made current again (they expire after 30 days), and the
daily board's answers that depend on the day being over are left out.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from services.anchor.keys import load_or_create_key, public_key_raw
from services.anchor.verify import verify_log
from services.api.app import create_app
from services.db import schema_url
from services.eventstore.migrations import applied_migrations, migrate

DATA = Path(__file__).parent.parent / "data" / "previous-release"
DUMPED_SCHEMA = "prevrelease"
SECRET = "previous-release-secret"


async def restore(conn: asyncpg.Connection, schema: str) -> None:
    """The dump into ``schema`` (made beforehand). Its events keep the transaction ids they were stored under
    on the machine that made it; a younger cluster's ids are first moved past them (a transaction each), or
    the log would read them as still being written and stop before them."""
    script = restore_script(schema)
    dumped = max(int(t) for t in re.findall(r"INSERT INTO \S+\.events OVERRIDING SYSTEM VALUE VALUES \(\d+, '(\d+)'",
                                            script))
    behind = dumped + 1 - int(await conn.fetchval("SELECT pg_current_xact_id()::text"))
    if behind > 0:
        await conn.execute(f"DO $$ BEGIN FOR i IN 1..{behind} LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; "
                           "END $$")
    await conn.execute(script)


def restore_script(schema: str) -> str:
    """The dump as statements for ``schema`` (made beforehand): its psql-only lines left out."""
    text = gzip.decompress((DATA / "dump.sql.gz").read_bytes()).decode()
    lines = [line for line in text.splitlines()
             if not line.startswith("\\") and line != f"CREATE SCHEMA {DUMPED_SCHEMA};"]
    return "\n".join(lines).replace(f"{DUMPED_SCHEMA}.", f'"{schema}".')


@pytest.fixture
async def restored(database_url, db_schema, monkeypatch):
    """The test's schema emptied and filled with the dump, as the previous release left it."""
    monkeypatch.setenv("BALOOT_SECRET", SECRET)
    monkeypatch.setenv("BALOOT_SIGNING_KEY_FILE", str(DATA / "signing-key.pem"))
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(f'DROP SCHEMA "{db_schema}" CASCADE; CREATE SCHEMA "{db_schema}"')
        await restore(conn, db_schema)
        await conn.execute(f'SET search_path TO "{db_schema}"')
        await conn.execute("UPDATE tokens SET expires_at = now() + interval '1 day'")
    finally:
        await conn.close()
    return schema_url(database_url, db_schema)


def contained(then, now, where: str = "$") -> list[str]:
    """Where ``now`` lacks or changes something ``then`` said (dicts may have gained keys)."""
    if isinstance(then, dict) and isinstance(now, dict):
        return [p for k, v in then.items()
                for p in (contained(v, now[k], f"{where}.{k}") if k in now else [f"{where}.{k}: missing"])]
    if isinstance(then, list) and isinstance(now, list) and len(then) == len(now):
        return [p for i, (a, b) in enumerate(zip(then, now)) for p in contained(a, b, f"{where}[{i}]")]
    return [] if then == now else [f"{where}: was {json.dumps(then)[:120]}, now {json.dumps(now)[:120]}"]


async def test_the_previous_release_database_migrates_and_its_streams_verify(restored):
    async with asyncpg.create_pool(restored, min_size=1, max_size=2) as pool:
        before = await applied_migrations(pool)
        applied_now = await migrate(pool)             # a changed migration file would be refused here
        assert len(before) == 8 and await applied_migrations(pool) == before + applied_now
        key = public_key_raw(load_or_create_key(DATA / "signing-key.pem")).hex()
        report = await verify_log(pool, key)
        streams, events = await pool.fetchrow("SELECT count(DISTINCT stream_id), count(*) FROM events")
        receipts = await pool.fetchval("SELECT count(*) FROM receipts")
    assert report.ok, report.findings
    assert (report.streams, report.events, report.receipts) == (streams, events, receipts)
    assert report.checkpoints >= 1 and report.unanchored_events == 0


async def test_the_api_answers_about_the_previous_release_database_what_it_answered(restored):
    answers = json.loads((DATA / "answers.json").read_text())
    tokens = {name: {"Authorization": f"Bearer {u['token']}"} for name, u in answers["users"].items()}
    problems: list[str] = []
    async with AsyncTestClient(app=create_app(restored, rate_limit=("second", 100_000)), timeout=60) as api:

        async def same(path: str, who: str, then: dict, **params) -> None:
            r = await api.get(path, headers=tokens[who], params=params)
            now = {"status": r.status_code, "body": r.json() if r.content else None}
            problems.extend(f"GET {path} as {who}: {p}" for p in contained(then, now))

        for tid, a in answers["tables"].items():
            who, daily = a["asker"], tid.startswith("daily.")
            await same(f"/tables/{tid}/view", who, a["view"])
            if not daily:                           # a daily board is shown to all once its day closed
                await same(f"/tables/{tid}/view", "spectator", a["spectator"])
            for what in ("deals", "receipts", "game_audit", "game_record"):
                path = {"game_audit": "audit", "game_record": "record"}.get(what, what)
                await same(f"/tables/{tid}/{path}", who, a[what])
            for n, then in a["audits"].items():
                await same(f"/tables/{tid}/deals/{n}/audit", who, then)
            for n, then in a["records"].items():
                await same(f"/tables/{tid}/deals/{n}/record", who, then)
        for cid, asked in answers["championships"].items():
            for what, then in asked.items():
                await same(f"/championships/{cid}{what}", "organiser", then)
        day = answers["daily"]["day"]
        await same(f"/daily/{day}/saudi/entry", "p3", answers["daily"]["entry"])
        await same("/log/checkpoints", "p0", answers["checkpoints"])
        await same("/log/key", "p0", answers["key"])
    assert not problems, "\n".join(problems[:40])
    finished = [a for a in answers["tables"].values() if a["view"]["body"].get("phase") == "ended"]
    assert len(finished) >= 8 and sum(len(a["audits"]) for a in finished) >= 10
