"""The fair-play panel of the organiser console in a real browser: a championship's game where one team is a pair
of ghosts (they choose every card seeing all four hands) and the other plays as the normal bot would, its cards
analysed from the log (the bids' exact values cost seconds a deal: not here, the API's tests judge bids) a few
deals at a time until both ghosts are flagged; the panel lists the same players, counts, evidence and flags as the
report, the ghosts flagged with their most telling decisions, each a link to the replay at that moment, and the
honest pair never; in English and Arabic, on a desktop and a phone."""

from __future__ import annotations

import asyncio
import re

import msgspec
from selenium.webdriver.common.by import By

from domain.baloot.bots import bot
from domain.baloot.fairplay import true_best_card
from domain.baloot.views import view
from services.api.wire import to_wire
from services.eventstore import ProjectionRunner
from services.fairplay.analyser import FairPlayAnalyser
from services.fairplay.projection import fairplay_read_model
from services.platform import Platform
from tests.api.test_fairplay_reports import CARDS, caught_up
from tests.web.conftest import in_four_looks
from tests.web.people import as_browser, sign_up, wait
from tests.web.test_organise import grant_organiser, me


STEP = 2            # deals played between two analyses
MOST = 40           # deals at most: a ghost not flagged by then fails the test


async def play_with_ghosts(served, table_id: str, headers_of: dict, ghosts: set[str], deals: int,
                           n: int = 0) -> int:
    """The game played over HTTP until deal ``deals`` has ended (or the game), each seat with its own token: the
    ghosts' cards from the whole deal (the server's own fold of the table, hands and all), every other choice
    the normal bot's from its view; the next command's number."""
    tables = await served.workers.tables()
    normal = bot("normal")
    for n in range(n, n + 2000):
        table = await tables.load(table_id)
        if table.game.phase == "ended" or table.game.deal_no > deals:
            return n
        state = table.game.deal
        seat = state.turn
        user = table.opened.seats[seat]
        command = true_best_card(state) if user in ghosts and state.phase == "playing" else None
        command = command or normal.choose(view(state, seat))
        r = served.http.post(f"/tables/{table_id}/commands", params={"seat": seat}, headers=headers_of[user],
                             json={"command_id": f"c{n}", "action": msgspec.to_builtins(to_wire(command))})
        assert r.status_code == 200, r.text
    raise AssertionError(f"deal {deals} did not end")


async def test_an_organiser_reads_who_plays_as_if_he_saw_the_cards_and_opens_the_replays(served, browser, pool):
    sign_up(browser, served.base, "maryam", name="Maryam")
    await grant_organiser(pool, me(browser, served.base))
    people = {name: served.user(name) for name in ("Faisal", "Nasser", "Hamad", "Saud")}
    headers_of = {uid: h for uid, h in people.values()}
    with as_browser(browser, served.base) as http:
        cid = http.post("/championships", json={"command_id": "c", "name": "Club Night",
                                                   "game_target": 500}).json()["championship_id"]
    for (a, b), team in (((people["Faisal"], people["Nasser"]), "Falcons"), ((people["Hamad"], people["Saud"]), "Pearls")):
        r = served.http.post(f"/championships/{cid}/teams", headers=a[1],
                             json={"command_id": team, "team_id": team, "players": [a[0], b[0]]})
        assert r.status_code == 201, r.text
        if r.json()["status"] == "invited":
            assert served.http.post(f"/championships/{cid}/teams/{team}/accept", headers=b[1]).status_code == 200
    with as_browser(browser, served.base) as http:
        for path in ("registration/close", "draw", "rounds/1/start"):
            r = http.post(f"/championships/{cid}/{path}", json={"command_id": path.replace("/", "-")})
            assert r.status_code == 200, r.text
        table_id = http.get(f"/championships/{cid}/matches").json()[0]["tables"][0]["table_id"]
    ghosts = {people["Faisal"][0], people["Nasser"][0]}
    # What the workers' projection and analyser do, here in the test: a few deals at a time (each analysed in the
    # analyser's process while the next are played), the evidence accumulating, until both ghosts are flagged;
    # the honest pair never is, at any point.
    runner = ProjectionRunner(pool, fairplay_read_model())
    analyser = FairPlayAnalyser(pool, (await Platform.on(pool)).tables, processes=1, kinds=CARDS, backfill=False)

    async def analysed() -> dict:
        await caught_up(pool, runner)
        while await analyser.run_once():
            pass
        with as_browser(browser, served.base) as http:
            report = http.get(f"/championships/{cid}/fairplay", params={"limit": 20}).json()
        assert {p["player"] for p in report["players"] if p["flagged"]} <= ghosts, report["players"]
        return report

    n, deals, analysing = 0, 0, None
    try:
        while deals < MOST:
            deals += STEP
            n = await play_with_ghosts(served, table_id, headers_of, ghosts, deals, n)
            if analysing is not None and {p["player"] for p in (await analysing)["players"] if p["flagged"]} == ghosts:
                break
            analysing = asyncio.ensure_future(analysed())
        if analysing is not None:
            await analysing
        report = await analysed()                           # the last deals played too
    finally:
        if analysing is not None and not analysing.done():
            analysing.cancel()
        await analyser.close()
    flagged = {p["player"] for p in report["players"] if p["flagged"]}
    assert flagged == ghosts, report["players"]           # the ghosts, and nobody else
    assert report["deals_pending"] == 0 and {v: 0 for v in ("bids", "shared")} == {
        v: sum(p[v]["telling"] for p in report["players"]) for v in ("bids", "shared")}

    page = f"{served.base}/organise/?id={cid}"
    browser.get(page)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#fairplay-players tr[data-player]"))
    # Read in one go: the console draws itself again as the round moves on.
    shown = browser.execute_script("""return {
      rows: [...document.querySelectorAll('#fairplay-players tr[data-player]')].map(r => ({
        player: r.dataset.player, flagged: r.dataset.flagged,
        cells: [...r.querySelectorAll('td')].map(c => [c.innerText, c.dataset.flagged ?? null])})),
      links: [...document.querySelectorAll('#fairplay .telling-list a.replay-link')].map(a => a.href),
      status: document.getElementById('fairplay-status').innerText}""")
    assert [r["player"] for r in shown["rows"]] == [p["player"] for p in report["players"]]
    for row, p in zip(shown["rows"], report["players"]):
        cells = row["cells"]
        assert [c[0] for c in cells[:3]] == [p["name"], str(p["deals"]), str(p["decisions"])]
        for (text, cell_flagged), variant in zip(cells[3:7], ("true", "partner", "shared", "bids")):
            score = p[variant]
            assert text.startswith(f"{score['followed']}/{score['telling']}" if score["telling"] else "—")
            if score["telling"]:                       # the evidence against the report's line
                shown_numbers = [float(x) for x in re.findall(r"-?\d+\.\d", text)]
                assert len(shown_numbers) == 2 and all(abs(x - score[k]) <= 0.051 for x, k in zip(
                    shown_numbers, ("evidence", "threshold"))), (text, score)
            assert (cell_flagged == "true") == score["flagged"]
        assert row["flagged"] == str(p["flagged"]).lower()
    telling = [d for p in report["players"] for d in p["most_telling"]]
    assert telling and shown["links"] == [served.base + d["replay"] for d in telling]
    assert str(report["deals_analysed"]) in shown["status"]

    def ready(d):
        return d.find_elements(By.CSS_SELECTOR, "#fairplay .telling-list a.replay-link") and d.execute_script(
            "document.getElementById('fairplay').scrollIntoView(); return true")
    in_four_looks(browser, page, "organise-fairplay", ready)

    browser.get(shown["links"][0])                          # the replay at the first telling moment
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-version]"))
    assert browser.execute_script("return document.querySelector('[data-version]').dataset.version") == str(
        telling[0]["version"])
