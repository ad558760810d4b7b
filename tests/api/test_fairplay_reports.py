"""Fair-play reports kept from the log (services/fairplay) and served to a championship's organisers and referees
only (real PostgreSQL, over HTTP): a championship's table played to its end by its four players, the
projection queues each finished deal, the analyser values every card choice, and the report judges each
player on his own choices, with replay links to the card events. Nobody else reads a report, a player asking
about himself included; rebuilt from zero, the read model holds the same decisions."""

from __future__ import annotations

import asyncio

import pytest

from services.eventstore import ProjectionRunner, rebuild_projection
from services.eventstore.listen import woken_by
from services.eventstore.store import CHANNEL, has_pending
from services.fairplay.analyser import FairPlayAnalyser
from services.fairplay.projection import fairplay_read_model
from services.platform import Platform
from services.roles import grant
from services.tables import stream_of
from tests.api.conftest import new_user, schema_url
from tests.api.test_championships import command, drawn, play_out, teams_of
from tests.api.test_tables import assert_problem


async def caught_up(pool, runner: ProjectionRunner) -> None:
    """The projection through the last event stored: a transaction still open (an append's notification) holds
    the readable log back, so catch up again once it has committed, woken by the log's notifications."""
    async with pool.acquire() as conn, woken_by(conn, CHANNEL) as woken:
        while True:
            woken.clear()
            if not await has_pending(pool, await runner.catch_up()):
                return
            await asyncio.wait_for(woken.wait(), 30)


async def analyse_all(pool) -> int:
    """The projection rebuilt from the log, then the analyser until nothing is pending; the deals analysed."""
    runner = ProjectionRunner(pool, fairplay_read_model())
    await runner.rebuild()
    await caught_up(pool, runner)
    analyser = FairPlayAnalyser(pool, (await Platform.on(pool)).tables, processes=1)
    try:
        done = 0
        while n := await analyser.run_once():
            done += n
        return done
    finally:
        await analyser.close()


@pytest.fixture
async def played(api, pool):
    _, organiser = await new_user(api, "organiser")
    referee_id, referee = await new_user(api, "referee")
    _, stranger = await new_user(api, "stranger")
    teams = await teams_of(api, 2)
    cid = await drawn(api, organiser, teams)
    r = await api.post(f"/championships/{cid}/referees", json={"user_id": referee_id}, headers=organiser)
    assert r.status_code == 200, r.text
    await command(api, cid, "rounds/1/start", organiser, "round-1")
    matches = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    table_id = matches[0]["tables"][0]["table_id"]
    headers_of = {uid: h for team in teams for uid, h in team}
    await play_out(api, table_id, headers_of)
    return dict(cid=cid, table_id=table_id, organiser=organiser, referee=referee, stranger=stranger,
                players=headers_of)


async def test_the_organiser_reads_each_players_score_from_his_own_choices_with_replays(api, pool, played):
    cid, table_id = played["cid"], played["table_id"]
    deals = (await api.get(f"/tables/{table_id}/deals", headers=played["organiser"])).json()
    finished = [d["deal_no"] for d in deals if d["finished"]]
    assert len(finished) >= 2
    assert await analyse_all(pool) == len(finished)
    rows = await pool.fetch("SELECT deal_no, status FROM fairplay_deals WHERE table_id = $1", table_id)
    assert sorted(r["deal_no"] for r in rows) == finished and {r["status"] for r in rows} == {"done"}

    r = await api.get(f"/championships/{cid}/fairplay", headers=played["organiser"])
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["deals_analysed"] == len(finished) and report["deals_pending"] == 0
    assert "never a verdict" in report["note"]
    by_player = {p["player"]: p for p in report["players"]}
    assert set(by_player) == set(played["players"])                 # the four players, nobody else
    names = {u["user_id"]: u["name"] for u in (await api.get(
        "/users", params={"ids": ",".join(by_player)}, headers=played["organiser"])).json()}
    # The cards each played where he had a choice, from the log itself (a card the clock played is nobody's).
    cards = await pool.fetch("SELECT metadata->>'actor' AS actor, count(*) AS n FROM events WHERE stream_id = $1 "
                             "AND event_type = 'card_played' GROUP BY 1", stream_of(table_id))
    played_cards = {c["actor"]: c["n"] for c in cards}
    for uid, p in by_player.items():
        assert p["name"] == names[uid] and p["kind"] == "human"
        assert p["deals"] == len(finished)
        assert 0 < p["decisions"] <= played_cards[uid]
        for variant in ("true", "partner", "shared", "bids"):
            score = p[variant]
            assert 0 <= score["followed"] <= score["telling"] and 0.0 <= score["p_value"] <= 1.0
        assert p["shared"]["telling"] == 0                           # no shared boards in this championship
        # The baseline is everybody else's share, the honest population of the same championship.
        others = [q for q in by_player.values() if q is not p]
        telling = sum(q["true"]["telling"] for q in others)
        if telling:
            assert p["true"]["baseline"] == pytest.approx(sum(q["true"]["followed"] for q in others) / telling)

    # One player's report lists each of his telling decisions, with the replay at his card.
    uid = max(by_player, key=lambda u: by_player[u]["true"]["telling"] + by_player[u]["partner"]["telling"])
    r = await api.get(f"/championships/{cid}/fairplay/players/{uid}", headers=played["referee"])
    assert r.status_code == 200, r.text
    mine = r.json()["players"][0]
    listed = mine["most_telling"]
    assert len(listed) >= max(mine["true"]["telling"], mine["partner"]["telling"]) > 0
    cards = [t for t in listed if t["kind"] == "card"]
    assert sum(t["followed"] == "true" for t in cards) == mine["true"]["followed"]
    assert sum(t["followed"] == "true" for t in listed if t["kind"] != "card") == mine["bids"]["followed"]
    for t in cards:
        assert t["replay"] == f"/watch/table.html?id={table_id}&at={t['version']}"
        row = await pool.fetchrow("SELECT event_type, metadata->>'actor' AS actor, data FROM events "
                                  "WHERE stream_id = $1 AND version = $2", stream_of(table_id), t["version"])
        assert row["event_type"] == "card_played" and row["actor"] == uid
        assert t["loss"] >= 2.0 and t["played"] in (t["played"], t["honest_best"], t["true_best"])
    assert_problem(await api.get(f"/championships/{cid}/fairplay/players/nobody", headers=played["organiser"]),
                   404, "unknown_player", field="player_id")


async def test_nobody_but_the_organisers_and_referees_reads_a_report_not_even_about_himself(api, pool, played):
    await analyse_all(pool)
    cid = played["cid"]
    report = f"/championships/{cid}/fairplay"
    for uid, headers in played["players"].items():                 # each player, about the field and himself
        assert_problem(await api.get(report, headers=headers), 403, "not_organiser")
        assert_problem(await api.get(f"{report}/players/{uid}", headers=headers), 403, "not_organiser")
    assert_problem(await api.get(report, headers=played["stranger"]), 403, "not_organiser")
    assert_problem(await api.get(report), 401)
    assert_problem(await api.get(f"{report}/players/{uid}", headers={"Authorization": "Bearer nope"}), 401)
    assert_problem(await api.get("/championships/none/fairplay", headers=played["organiser"]), 404)
    assert_problem(await api.get(report, params={"level": "2"}, headers=played["organiser"]), 400, field="query.level")
    assert (await api.get(report, headers=played["referee"])).status_code == 200


async def test_a_rebuild_from_zero_analyses_every_deal_again_to_the_same_decisions(api, pool, played):
    n = await analyse_all(pool)
    before = await pool.fetch("SELECT table_id, deal_no, decisions::text AS d FROM fairplay_deals ORDER BY 1, 2")
    seats = await pool.fetch("SELECT * FROM fairplay_seats ORDER BY table_id, deal_no, seat, by")
    assert await analyse_all(pool) == n                        # the rebuild queued them all again
    assert await pool.fetch("SELECT table_id, deal_no, decisions::text AS d FROM fairplay_deals ORDER BY 1, 2") == before
    assert await pool.fetch("SELECT * FROM fairplay_seats ORDER BY table_id, deal_no, seat, by") == seats


async def test_baloot_fairplay_reports_a_championship_and_a_player_from_the_log(api, pool, played, capsys,
                                                                              database_url, db_schema):
    from services.cli import main

    url = schema_url(database_url, db_schema)
    await rebuild_projection(pool, fairplay_read_model())          # queued, not analysed: the command analyses
    assert await pool.fetchval("SELECT count(*) FROM fairplay_deals WHERE status = 'pending'") > 0
    code = await asyncio.to_thread(main, ["fairplay", "--championship", played["cid"], "--database-url", url])
    out = capsys.readouterr().out
    assert await pool.fetchval("SELECT count(*) FROM fairplay_deals WHERE status = 'pending'") == 0
    report = (await api.get(f"/championships/{played['cid']}/fairplay", headers=played["organiser"])).json()
    assert code == (1 if any(p["flagged"] for p in report["players"]) else 0)
    assert f"{report['deals_analysed']} deals analysed" in out
    for p in report["players"]:
        line = next(x for x in out.splitlines() if x.startswith(p["name"]))
        assert f"{p['true']['followed']}/{p['true']['telling']}" in line
    uid = next(p["player"] for p in report["players"] if p["most_telling"] or p["true"]["telling"])
    await asyncio.to_thread(main, ["fairplay", "--championship", played["cid"], "--player", uid, "--database-url", url])
    out = capsys.readouterr().out
    assert f"/watch/table.html?id={played['table_id']}&at=" in out
    assert await asyncio.to_thread(main, ["fairplay", "--player", "nobody", "--database-url", url]) == 2


async def test_the_platforms_referees_read_a_player_across_everything_and_nobody_else(api, pool, played):
    await analyse_all(pool)
    uid, headers = next(iter(played["players"].items()))
    where = f"/fairplay/players/{uid}"
    for who in (played["organiser"], played["referee"], headers, played["stranger"]):   # a championship's own
        assert_problem(await api.get(where, headers=who), 403, "not_platform_official")     # officials are not
    assert_problem(await api.get(where), 401)
    official_id, official = await new_user(api, "the platform's referee")
    await grant(pool, "platform", "", official_id, "referee")
    r = await api.get(where, headers=official)
    assert r.status_code == 200, r.text
    everywhere = r.json()
    assert everywhere["scope"] == "player" and everywhere["championship_id"] is None
    [mine] = everywhere["players"]
    in_championship = (await api.get(f"/championships/{played['cid']}/fairplay/players/{uid}",
                                     headers=played["organiser"])).json()["players"][0]
    assert {k: mine[k] for k in ("deals", "decisions", "true", "bids")} == {
        k: in_championship[k] for k in ("deals", "decisions", "true", "bids")}      # he played nowhere else
    assert_problem(await api.get("/fairplay/players/nobody", headers=official), 404, "unknown_player")
