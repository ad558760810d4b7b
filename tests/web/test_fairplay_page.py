"""The fair-play panel of the organiser console in a real browser: a championship's game (to 500) where one team
is a pair of ghosts (they choose every card, bid and double seeing all four hands) and the other plays as the
normal bot would, analysed from the log; the panel lists the same players, counts and flags as the report, the ghosts
flagged with their most telling decisions, each a link to the replay at that moment; in English and Arabic, on
a desktop and a phone."""

from __future__ import annotations

import msgspec
from selenium.webdriver.common.by import By

from domain.baloot.bots import bot
from domain.baloot.fairplay import true_best_call, true_best_card
from domain.baloot.views import view
from services.api.wire import to_wire
from tests.api.test_fairplay_reports import analyse_all
from tests.web.conftest import in_four_looks
from tests.web.people import as_browser, sign_up, wait
from tests.web.test_organise import grant_organiser, me


async def play_with_ghosts(served, table_id: str, headers_of: dict, ghosts: set[str]) -> None:
    """The game played over HTTP to its end, each seat with its own token: the ghosts' choices from the whole
    deal (the server's own fold of the table, hands and all), the others' the normal bot's from their view."""
    tables = await served.workers.tables()
    normal = bot("normal")
    for n in range(5000):
        table = await tables.load(table_id)
        if table.game.phase == "ended":
            return
        state = table.game.deal
        seat = state.turn
        user = table.opened.seats[seat]
        command = None
        if user in ghosts:
            command = true_best_card(state) if state.phase == "playing" else true_best_call(state)
        command = command or normal.choose(view(state, seat))
        r = served.http.post(f"/tables/{table_id}/commands", params={"seat": seat}, headers=headers_of[user],
                             json={"command_id": f"c{n}", "action": msgspec.to_builtins(to_wire(command))})
        assert r.status_code == 200, r.text
    raise AssertionError("the game did not end")


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
    await play_with_ghosts(served, table_id, headers_of, ghosts)
    assert await analyse_all(pool) > 0                  # what the workers' analyser does, here in the test

    with as_browser(browser, served.base) as http:
        report = http.get(f"/championships/{cid}/fairplay", params={"limit": 20}).json()
    flagged = {p["player"] for p in report["players"] if p["flagged"]}
    assert flagged == ghosts, report["players"]           # the ghosts, and nobody else

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
