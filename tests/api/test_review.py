"""Deal reviews, a player's accuracy and the evaluation bar over HTTP, on a real PostgreSQL: a championship table's
first deal played by its four players, analysed by the fair-play analyser; the review's figures are checked
against the stored analysis (its raw values, the marks' thresholds written here); a review asked before the
analysis puts the deal first in the queue; the evaluation bar is refused to a player of the deal in play, given
to spectators from public information and to officials from the true hands, whose values are stored sealed.
Who may read a review in every phase (a shared board's hidden from its own players until the board is closed)
is a row of the access matrix (tests/api/test_access_matrix.py: ``dealReview``)."""

from __future__ import annotations

import random

import msgspec
import pytest

from services.evaluation import Evaluator
from services.fairplay.analyser import StoredDecision
from services.platform import Platform
from tests.api.conftest import new_user
from tests.api.test_championships import command, drawn, teams_of
from tests.api.test_fairplay_reports import CARDS, analyse_all, play_deals, quick
from tests.api.test_tables import assert_problem

THRESHOLDS = ((10.0, "blunder"), (5.0, "mistake"), (2.0, "inaccuracy"))     # docs/review.md


def expected_mark(cost: float) -> str:
    return next((m for least, m in THRESHOLDS if cost >= least - 1e-9), "")


@pytest.fixture
async def table(api, pool):
    _, organiser = await new_user(api, "organiser")
    _, stranger = await new_user(api, "stranger")
    teams = await teams_of(api, 2)
    cid = await drawn(api, organiser, teams)
    await command(api, cid, "rounds/1/start", organiser, "round-1")
    matches = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    table_id = matches[0]["tables"][0]["table_id"]
    players = {uid: h for team in teams for uid, h in team}
    return dict(table_id=table_id, organiser=organiser, stranger=stranger, players=players)


async def test_a_players_review_shows_the_stored_analysis_marked_and_his_accuracy_sums_it(api, pool, table):
    tid, players = table["table_id"], table["players"]
    await play_deals(api, tid, players, deals=1)
    uid, headers = next(iter(players.items()))
    # Not analysed yet: "analysing", and the deal is put first in the analysers' queue.
    await analyse_all_projection_only(pool)
    r = await api.get(f"/tables/{tid}/deals/1/review", headers=headers)
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "analysing" and r.json()["choices"] == []
    assert await pool.fetchval("SELECT requested_at IS NOT NULL FROM fairplay_deals WHERE table_id = $1 AND "
                               "deal_no = 1", tid)
    assert await analyse_all(pool, CARDS) == 1

    review = (await api.get(f"/tables/{tid}/deals/1/review", headers=headers)).json()
    assert review["status"] == "done"
    seats = review["seats"]
    assert review["seat"] == seats.index(uid)
    row = await pool.fetchrow("SELECT decisions, view_values FROM fairplay_deals WHERE table_id = $1", tid)
    stored = msgspec.json.decode(row["decisions"], type=list[StoredDecision])
    # The card choices by the review's own values (sampled and solved), the bids and doubles by the analysis'.
    solved = msgspec.json.decode(row["view_values"])
    assert solved and set(solved) == {str(s.decision.index) for s in stored if s.decision.kind == "card"}
    assert len(review["choices"]) == len(stored) > 0
    assert "telling" not in r.text and "evidence" not in str(review)        # never the fair-play flags
    costs = {s: 0.0 for s in range(4)}
    for item, s in zip(review["choices"], stored):
        c, d = item["choice"], s.decision
        assert item["version"] == s.version and c["seat"] == d.seat and c["played"] == d.played
        values = solved.get(str(d.index), list(d.honest))
        assert c["options"] == list(d.legal) and c["honest"] == pytest.approx(values)
        assert c["source"] == ("solved" if d.kind == "card" else "rollouts")
        cost = max(values) - values[d.legal.index(d.played)]
        assert c["cost"] == pytest.approx(cost) and c["mark"] == expected_mark(cost)
        assert values[d.legal.index(c["best"])] == max(values)
        assert c["true_cost"] == pytest.approx(max(d.true) - d.true[d.legal.index(d.played)])
        costs[d.seat] += cost
    for line in review["seat_lines"]:
        assert line["cost"] == pytest.approx(costs[line["seat"]], abs=0.01)

    # His accuracy by phase: the same choices, summed (his own: every choice here was a person's).
    acc = (await api.get(f"/players/{uid}/accuracy", headers=table["stranger"])).json()
    mine = [i["choice"] for i in review["choices"] if i["choice"]["seat"] == seats.index(uid)]
    assert acc["deals"] == 1
    assert sum(p["decisions"] for p in acc["phases"]) == len(mine)
    assert [p["phase"] for p in acc["phases"]] == ["bidding", "leading", "following", "trumping"]
    for p in acc["phases"]:
        of = [c for c in mine if c["phase"] == p["phase"]]
        assert p["decisions"] == len(of)
        assert p["blunders"] == sum(c["mark"] == "blunder" for c in of)
        if of:
            assert p["accuracy"] == pytest.approx(sum(not c["mark"] for c in of) / len(of), abs=1e-4)
    assert sum(w["decisions"] for w in acc["weeks"]) == len(mine)
    assert_problem(await api.get("/players/nobody/accuracy", headers=headers), 404, "unknown_user")


async def evaluate_watched(pool) -> None:
    """What the workers' evaluator does, here: every watched deal's positions evaluated (4 samples: quick)."""
    evaluator = Evaluator(pool, (await Platform.on(pool)).tables, share=1.0, samples=4)
    try:
        while await evaluator.run_once():
            pass
    finally:
        await evaluator.close()


async def play_cards(api, tid: str, players: dict, cards: int) -> None:
    """The deal being played taken on by its players until ``cards`` cards are on the table or gone (quick
    bids: the first to speak buys a Sun)."""
    rng = random.Random(tid)
    seats = (await api.get(f"/tables/{tid}/view", headers=next(iter(players.values())))).json()["seats"]
    for n in range(200):
        view = (await api.get(f"/tables/{tid}/view", headers=next(iter(players.values())))).json()
        deal = view["deal"]
        if sum(len(t["cards"]) for t in deal["tricks"]) + len(deal["trick"]) >= cards:
            return
        seat = deal["turn"]
        legal = (await api.get(f"/tables/{tid}/view", params={"seat": seat},
                               headers=players[seats[seat]])).json()["deal"]["legal_actions"]
        r = await api.post(f"/tables/{tid}/commands", params={"seat": seat}, headers=players[seats[seat]],
                           json={"command_id": f"cards-{n}", "action": quick(legal, rng)})
        assert r.status_code == 200, r.text
    raise AssertionError("the deal did not reach its cards")


async def analyse_all_projection_only(pool) -> None:
    """The fair-play projection caught up (the deal queued), no analysis."""
    from services.eventstore import ProjectionRunner
    from services.fairplay.projection import fairplay_read_model
    from tests.api.test_fairplay_reports import caught_up
    runner = ProjectionRunner(pool, fairplay_read_model())
    await runner.rebuild()
    await caught_up(pool, runner)


async def test_the_bar_is_no_players_during_his_deal_and_a_spectators_from_public_information(api, pool, table):
    tid, players = table["table_id"], table["players"]
    await play_deals(api, tid, players, deals=1)
    await play_cards(api, tid, players, 5)
    # A later deal is being played (the second, or a later one where all passed): its players get nothing of it
    # while it is played.
    n = (await api.get(f"/tables/{tid}/view", headers=next(iter(players.values())))).json()["deal_no"]
    assert n >= 2
    for h in players.values():
        assert_problem(await api.get(f"/tables/{tid}/deals/{n}/evaluation", headers=h), 403, "engine_help")
    # Deal 1 is over: its players, the spectators and the officials get its curve.
    spectator = (await api.get(f"/tables/{tid}/deals/1/evaluation", headers=table["stranger"])).json()
    official = (await api.get(f"/tables/{tid}/deals/1/evaluation", headers=table["organiser"])).json()
    assert spectator["basis"] == "open" and official["basis"] == "open" and spectator["finished"]
    live = (await api.get(f"/tables/{tid}/deals/{n}/evaluation", headers=table["stranger"])).json()
    assert live["basis"] == "public" and not live["finished"]
    live_official = (await api.get(f"/tables/{tid}/deals/{n}/evaluation", headers=table["organiser"])).json()
    assert live_official["basis"] == "open"
    watched = {(r["deal_no"], r["basis"]) for r in await pool.fetch("SELECT deal_no, basis FROM evaluation_watch")}
    assert watched == {(1, "open"), (n, "public"), (n, "open")}

    await evaluate_watched(pool)
    done = (await api.get(f"/tables/{tid}/deals/1/evaluation", headers=table["stranger"])).json()
    assert len(done["points"]) == done["positions"] > 4
    assert all(p["value"]["exact"] for p in done["points"])
    last = done["points"][-1]["value"]
    deals = (await api.get(f"/tables/{tid}/deals", headers=table["stranger"])).json()
    gp = deals[0]["game_points"]
    assert last["margin"] == pytest.approx(gp[0] - gp[1])           # after the last card: the deal's result
    # The turning point: after the largest move of the buyer's chance (then of the margin), none if none moved.
    pts, turn, most = done["points"], None, (0.0, 0.0)
    for a, b in zip(pts, pts[1:]):
        move = (abs(b["value"]["made"] - a["value"]["made"]), abs(b["value"]["margin"] - a["value"]["margin"]))
        if move > most:
            turn, most = b["version"], move
    assert done["turning"] == turn
    # The open values of the deal in play are sealed in the database; the public ones are not.
    rows = await pool.fetch("SELECT basis, sealed, value FROM evaluations WHERE deal_no = $1", n)
    assert {r["basis"] for r in rows} == {"open", "public"}
    for r in rows:
        assert r["sealed"] == (r["basis"] == "open")
        assert (b"margin" in bytes(r["value"])) == (r["basis"] == "public")
    live = (await api.get(f"/tables/{tid}/deals/{n}/evaluation", headers=table["organiser"])).json()
    assert len(live["points"]) == len([r for r in rows if r["basis"] == "open"])
