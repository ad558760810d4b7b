"""Fair-play reports kept from the log (services/fairplay) and served to a championship's organisers and referees
only (real PostgreSQL, over HTTP): two deals of a championship's table played by its four players, the
projection queues each finished deal, the analyser values every card, bid and double chosen, and the report
judges each player on his own choices against an honest player of his own strength, with replay links to the
card events. Nobody else reads a report, a player asking
about himself included; rebuilt from zero, the read model holds the same decisions."""

from __future__ import annotations

import asyncio
import random

import math

import msgspec
import pytest

from domain.baloot.fairplay import MIN_TELLING, judge, strengths
from services.eventstore import ProjectionRunner, rebuild_projection
from services.eventstore.listen import woken_by
from services.eventstore.store import CHANNEL, has_pending
from services.fairplay.analyser import KINDS_ENV, FairPlayAnalyser, StoredDecision
from services.fairplay.projection import fairplay_read_model
from services.fairplay.report import LEVEL
from services.platform import Platform
from services.roles import grant
from services.tables import stream_of
from tests.api.conftest import new_user, schema_url
from tests.api.test_championships import choose, command, drawn, play_out, teams_of
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


CARDS = ("card",)   # the cards alone, where a test is not about the bids (their exact values cost the most)


async def analyse_all(pool, kinds: tuple[str, ...] | None = None) -> int:
    """The projection rebuilt from the log, then the analyser (of ``kinds``: all by default) until nothing is
    pending; the deals analysed."""
    runner = ProjectionRunner(pool, fairplay_read_model())
    await runner.rebuild()
    await caught_up(pool, runner)
    analyser = FairPlayAnalyser(pool, (await Platform.on(pool)).tables, processes=1, kinds=kinds, backfill=False)
    try:
        done = 0
        while n := await analyser.run_once():
            done += n
        return done
    finally:
        await analyser.close()


DEALS = 2           # the exact values cost seconds a deal (the bids the most): two deals, each analysed in full


def quick(actions: list[dict], rng: random.Random) -> dict:
    """A legal action, as ``choose`` picks them, but the first to speak buys a Sun when he may and the others
    then pass: every deal is played (none redealt after four passes twice, eight bids to value for nothing)
    and few bids are left to value, the costliest part of the analysis."""
    for bid in ("sun", "pass"):
        mine = [a for a in actions if a["type"] == "bid" and a.get("bid") == bid]
        if mine:
            return mine[0]
    return choose(actions, rng)


async def play_deals(api, table_id: str, headers_of: dict[str, dict], deals: int = DEALS) -> None:
    """The table's first ``deals`` deals played over HTTP, each seat with its own token (the game left there)."""
    await play_out(api, table_id, headers_of, quick, deals)


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
    await play_deals(api, table_id, headers_of)
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
    # The cards, bids and doubles each chose, from the log itself (a card the clock played is nobody's).
    cards = await pool.fetch("SELECT metadata->>'actor' AS actor, count(*) AS n FROM events WHERE stream_id = $1 "
                             "AND event_type IN ('card_played', 'bid_made', 'double_called') GROUP BY 1",
                             stream_of(table_id))
    played_cards = {c["actor"]: c["n"] for c in cards}
    seats_of = {r["player"]: r for r in await pool.fetch(
        "SELECT player, sum(telling) AS telling, sum(partner_telling) AS partner_telling, sum(bid_telling) AS "
        "bid_telling FROM fairplay_seats WHERE by = 'player' GROUP BY player")}
    own: dict[str, list] = {}                                      # each player's decisions, as stored
    for r in await pool.fetch("SELECT seats, decisions FROM fairplay_deals WHERE table_id = $1", table_id):
        for s in msgspec.json.decode(r["decisions"], type=list[StoredDecision]):
            assert s.by == "player"
            own.setdefault(r["seats"][s.decision.seat], []).append(s.decision)
    assert any(d.kind == "bid" for ds in own.values() for d in ds) and all(own.get(u) for u in by_player)
    for uid, p in by_player.items():
        assert p["name"] == names[uid] and p["kind"] == "human"
        assert p["deals"] == len(finished)
        assert 0 < p["decisions"] <= played_cards[uid]
        assert p["shared"]["telling"] == 0                           # no shared boards in this championship
        # Judged on his own decisions only, against an honest player of his own strength (fitted on his
        # decisions the hidden cards did not change; nobody else's share is his reference), the line corrected
        # for the four players in four variants.
        mine = own[uid]
        fitted = strengths(mine)
        for variant, sums in (("true", seats_of[uid]["telling"]), ("partner", seats_of[uid]["partner_telling"]),
                              ("shared", 0), ("bids", seats_of[uid]["bid_telling"])):
            score = p[variant]
            assert score["telling"] == sums                         # the analyser's sums say the same
            assert 0 <= score["followed"] <= score["telling"] and 0.0 <= score["p_value"] <= 1.0
            assert score["threshold"] == pytest.approx(math.log(4 * 4 / LEVEL), abs=1e-3)
            e = judge([] if variant == "shared" else mine, "true" if variant == "shared" else variant, LEVEL, 16,
                      fitted)
            assert (score["telling"], score["followed"]) == (e.telling, e.followed)
            assert score["evidence"] == pytest.approx(e.evidence, abs=1e-3)
            assert score["p_value"] == pytest.approx(math.exp(-e.evidence)) if e.evidence > 0 else score["p_value"] == 1.0
            assert score["baseline"] == pytest.approx(e.expected / e.telling if e.telling else 0.0)
            assert score["flagged"] == (variant in ("true", "partner", "shared") and e.telling >= MIN_TELLING
                                        and e.evidence >= score["threshold"])
            assert score["gain"] == pytest.approx(e.gain, abs=0.01)

    # One player's report lists each of his telling decisions, with the replay at his card.
    uid = max(by_player, key=lambda u: by_player[u]["true"]["telling"] + by_player[u]["partner"]["telling"])
    r = await api.get(f"/championships/{cid}/fairplay/players/{uid}", headers=played["referee"])
    assert r.status_code == 200, r.text
    mine = r.json()["players"][0]
    listed = mine["most_telling"]
    # (Two deals may hold no telling card at all, their cards dealt from a random secret: then none is listed.)
    assert len(listed) >= max(mine["true"]["telling"], mine["partner"]["telling"])
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
    # Queued, not analysed (the analysis costs seconds a deal; who may read a report does not depend on it).
    await rebuild_projection(pool, fairplay_read_model())
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
    n = await analyse_all(pool, CARDS)
    before = await pool.fetch("SELECT table_id, deal_no, decisions::text AS d FROM fairplay_deals ORDER BY 1, 2")
    seats = await pool.fetch("SELECT * FROM fairplay_seats ORDER BY table_id, deal_no, seat, by")
    assert await analyse_all(pool, CARDS) == n                        # the rebuild queued them all again
    assert await pool.fetch("SELECT table_id, deal_no, decisions::text AS d FROM fairplay_deals ORDER BY 1, 2") == before
    assert await pool.fetch("SELECT * FROM fairplay_seats ORDER BY table_id, deal_no, seat, by") == seats


async def test_baloot_fairplay_reports_a_championship_and_a_player_from_the_log(api, pool, played, capsys,
                                                                              database_url, db_schema, monkeypatch):
    from services.cli import main

    monkeypatch.setenv(KINDS_ENV, ",".join(CARDS))                # the command's analyser, as the workers' is set

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
    # The cards are dealt from a random secret: two deals may hold no telling card (then none is listed).
    telling = [p["player"] for p in report["players"] if p["most_telling"] or p["true"]["telling"]]
    uid = telling[0] if telling else report["players"][0]["player"]
    await asyncio.to_thread(main, ["fairplay", "--championship", played["cid"], "--player", uid, "--database-url", url])
    out = capsys.readouterr().out
    assert (f"/watch/table.html?id={played['table_id']}&at=" in out) == bool(telling)
    assert await asyncio.to_thread(main, ["fairplay", "--player", "nobody", "--database-url", url]) == 2


async def test_the_platforms_referees_read_a_player_across_everything_and_nobody_else(api, pool, played):
    await analyse_all(pool, CARDS)
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
