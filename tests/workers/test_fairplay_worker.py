"""The fair-play analyser in the workers (real PostgreSQL, in-process broker; the analysis in processes of its
own): a championship of bot teams played by the workers alone has every finished deal of its tables analysed,
each seat's choices counted as a bot's, and the decisions stored are the ones an analysis of the same events in
this process gives (the same events and seed, the same decisions). The workers here analyse the cards alone
(``BALOOT_FAIRPLAY_KINDS``), as hardware short of the bids' exact values would, and the games are short: the
exact values cost seconds a deal."""

from __future__ import annotations

import asyncio

import asyncpg
import msgspec
import pytest

from services.championships import RunSettings
from services.fairplay.analyser import ANALYSED, KINDS_ENV, SAMPLES, StoredDecision, analyse_span
from services.fairplay.report import championship_report
from services.tables import deal_spans
from tests.api.conftest import schema_url
from tests.workers.conftest import db_now, new_championship, register_teams

CARDS = ("card",)
PENDING = "SELECT count(*) FROM fairplay_deals WHERE status = 'pending'"


async def all_analysed(pool, url: str, timeout: float = 300.0) -> None:
    """Wait until the analyser has left nothing pending, woken by its notifications."""
    conn = await asyncpg.connect(url)
    woken = asyncio.Event()
    await conn.add_listener(ANALYSED, lambda *_: woken.set())
    try:
        while await pool.fetchval(PENDING):
            woken.clear()
            if await pool.fetchval(PENDING):
                await asyncio.wait_for(woken.wait(), timeout)
    finally:
        await conn.close()


TARGET = 30             # a game of a deal or a few


@pytest.fixture
def cards_only(monkeypatch):
    """The workers' analysers set to the cards alone (before the workers start)."""
    monkeypatch.setenv(KINDS_ENV, ",".join(CARDS))


async def test_the_workers_analyse_every_finished_deal_of_a_bot_championship(cards_only, running, plain_services, pool,
                                                                             database_url, db_schema):
    svc = plain_services
    cid = await new_championship(svc, pool, "Bots Cup", round_1_at=await db_now(pool),
                                 run=RunSettings(check_in_seconds=1.0), game_target=TARGET)
    teams = await register_teams(svc, pool, cid, 2, "bot")       # one table: a final
    assert await running.workers.reconcile() >= 1
    await running.drain()
    assert (await svc.load(cid)).state.status == "finished"
    await running.projection_caught_up(pool)             # the fair-play projection has queued every deal
    await all_analysed(pool, schema_url(database_url, db_schema))

    tables = [r["table_id"] for r in await pool.fetch("SELECT table_id FROM tables_index WHERE championship_id = $1",
                                                      cid)]
    assert len(tables) == 1
    expected = 0
    for table_id in tables:
        events = await svc.tables.events(table_id)
        spans = deal_spans(events)
        rows = {r["deal_no"]: r for r in await pool.fetch(
            "SELECT deal_no, status, decisions FROM fairplay_deals WHERE table_id = $1", table_id)}
        assert sorted(rows) == [n for n, _, _ in spans]          # every deal ended, every one analysed
        assert {r["status"] for r in rows.values()} == {"done"}
        expected += len(spans)
        # The deals again, here, up to the first with decisions (a deal redealt at once, Kawesh, has none): the
        # worker's processes gave the same decisions.
        for n, _, deal in spans:
            ids = {id(e) for e in deal}
            mine = [(v, e) for v, _, e in events if id(e) in ids]
            again = analyse_span("baloot", [e for _, e in mine], [v for v, _ in mine], {},
                                 0, SAMPLES, CARDS)
            stored = msgspec.json.decode(rows[n]["decisions"], type=list[StoredDecision])
            assert [s.decision for s in stored] == [s.decision for s in again]
            if stored:
                break
        assert stored and {s.by for s in stored} == {"bot"} and {s.decision.kind for s in stored} == {"card"}
    report = await championship_report(pool, cid)
    assert report.deals_analysed == expected and report.deals_pending == 0
    players = {u for members in teams.values() for u, _ in members}
    assert {p.player for p in report.players} == {u.user_id for u in players}
    assert all(p.kind == "bot" and p.decisions > 0 for p in report.players)
