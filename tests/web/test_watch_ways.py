"""The spectator's pages lead somewhere, in a real browser: the start page to play, organise and today's deal; a
bracket's match to its tables' live view, replay and audit; a replay's end to the final score, the deals and
the last trick; names with digits isolated inside Arabic; the audit's suits as symbols; a player's results
naming the opponents. Each reached by clicking, as a spectator does."""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By

from services.tokens import create_user
from services.eventstore import ProjectionRunner
from services.ratings import ratings_read_model
from tests.stored_championship import knock_out, team_name
from tests.web.conftest import in_four_looks, requested_urls, same_origin
from tests.web.people import wait
from tests.web.test_pages import bot_table, text_of

ISOLATES = "\u2068\u2069"
# Bot players' names as a club writes them: Latin, with a digit first (the Arabic page must not reorder them).
BOTS = ["2 Buraidah-Dates bot", "4 Qassim-Palms bot", "6 Hail-Falcons bot", "8 Jouf-Olives bot"]


def refused(served) -> list[tuple[str, str, int]]:
    """Every request of the browser the server refused (4xx), from the server's own record of its answers."""
    return [(e["method"], e["path"], e["status"]) for e in served.recorder.responses
            if e["status"] is not None and 400 <= e["status"] < 500]


def reads_left_to_right(driver, css: str, name: str) -> bool:
    """Whether ``name``, shown in the element ``css``, is drawn in its own order: its first character left of its
    last one (a Latin name with a digit first, reordered by an Arabic sentence, shows the digit on the right)."""
    return driver.execute_script("""
        const [css, name] = arguments;
        const root = document.querySelector(css);
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const at = n.textContent.indexOf(name);
          if (at < 0) continue;
          const box = k => { const r = document.createRange(); r.setStart(n, at + k); r.setEnd(n, at + k + 1);
                             return r.getBoundingClientRect(); };
          return box(0).left < box(name.length - 1).left;
        }
        return null;""", css, name)


def actions_shown(driver) -> bool:
    """The audit's action list is drawn, and scrolled to (the screenshot shows it)."""
    return bool(driver.find_elements(By.CSS_SELECTOR, "#actions li.action")) and driver.execute_script(
        "document.getElementById('actions').scrollIntoView(); return true")


def misordered(driver, css: str) -> list[str]:
    """The bot names (Latin, a digit first) under ``css`` not drawn in their own order, wherever they stand (read
    on the phone, where a name may wrap)."""
    return driver.execute_script("""
        const out = [];
        const walker = document.createTreeWalker(document.querySelector(arguments[0]), NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          for (const m of n.textContent.matchAll(/\\d [A-Z][\\w-]+ bot/g)) {
            const box = k => { const r = document.createRange(); r.setStart(n, k); r.setEnd(n, k + 1);
                               return r.getBoundingClientRect(); };
            const [first, last] = [box(m.index), box(m.index + m[0].length - 1)];
            // On one line, the first character left of the last; wrapped, the first on the earlier line.
            if (!(Math.abs(first.top - last.top) < 2 ? first.left < last.left : first.top < last.top)) out.push(m[0]);
          }
        }
        return out;""", css)


# ---------------------------------------------------------------- the start page

def test_the_start_page_leads_to_play_organise_and_todays_deal(served, browser):
    browser.get(f"{served.base}/watch/?lang=en")
    wait(browser, lambda d: d.find_elements(By.ID, "to-play"))[0].click()
    wait(browser, lambda d: d.current_url == f"{served.base}/play/" and d.find_elements(By.ID, "sign-in"))
    browser.back()
    wait(browser, lambda d: d.find_elements(By.ID, "to-organise"))[0].click()
    wait(browser, lambda d: d.current_url == f"{served.base}/organise/")
    browser.back()
    wait(browser, lambda d: d.find_elements(By.ID, "to-daily"))[0].click()
    # Today's deal (the day is UTC, as the server's): its page, today's set, open.
    wait(browser, lambda d: d.find_elements(By.ID, "set-status"))
    today = browser.execute_script("return new Date().toISOString().slice(0, 10)")
    assert f"daily.html?day={today}&profile=saudi" in browser.current_url
    assert browser.find_element(By.ID, "set-status").get_attribute("data-closed") == "false"
    seen = in_four_looks(browser, f"{served.base}/watch/", "start-links", lambda d: d.find_elements(By.ID, "to-daily"),
                         lambda d: [a.text.split("\n")[0] for a in d.find_elements(By.CSS_SELECTOR, "#start-links a")])
    assert seen["en"] == ["Play", "Organise", "Today's deal"] and seen["ar"] == ["العب", "نظّم", "توزيعة اليوم"]
    assert same_origin(requested_urls(browser), served.base) == []


# ---------------------------------------------------------------- a championship's match, its tables, the replay's end

async def bot_championship(served, pool) -> tuple[str, str, dict]:
    """A knock-out of two teams of bot players (named as a club names them), created and started by its
    organiser over HTTP, its one table live (the workers not started yet); returns its id, the table's and the
    organiser's headers."""
    _, organiser = served.user("Organiser")
    bots = [(await create_user(pool, name, "bot"))[0].user_id for name in BOTS]      # as the demo makes them
    r = served.http.post("/championships", headers=organiser, json={
        "command_id": "create", "name": "Qassim Night 1", "game_target": 1})
    assert r.status_code == 201, r.text
    cid = r.json()["championship_id"]
    for k, team in enumerate(("Dates", "Palms")):
        r = served.http.post(f"/championships/{cid}/teams", headers=organiser,
                             json={"command_id": team, "team_id": team, "players": [bots[k], bots[k + 2]]})
        assert r.status_code == 201, r.text
    for path in ("registration/close", "draw", "rounds/1/start"):
        r = served.http.post(f"/championships/{cid}/{path}", headers=organiser, json={"command_id": path.replace("/", "-")})
        assert r.status_code == 200, r.text
    [match] = served.http.get(f"/championships/{cid}/matches", headers=organiser).json()
    return cid, match["tables"][0]["table_id"], organiser


def match_links(driver) -> list[dict]:
    return driver.execute_script(
        "return [...document.querySelectorAll('#match-tables li')].map(li => ({table: li.dataset.table, "
        "status: li.dataset.status, live: li.querySelector('a.live-link')?.href ?? null, "
        "replay: li.querySelector('a.replay-link')?.href ?? null, "
        "audits: [...li.querySelectorAll('a.audit-link')].map(a => [Number(a.dataset.deal), a.href])}))")


async def test_a_bracket_match_leads_to_its_tables_replay_and_audit_and_the_replay_ends_on_the_result(served, browser,
                                                                                                   pool):
    cid, table_id, organiser = await bot_championship(served, pool)
    [match] = served.http.get(f"/championships/{cid}/matches", headers=organiser).json()
    # While it is played, the match's table leads to its live view (and its replay so far).
    browser.get(f"{served.base}/watch/championship.html?id={cid}&match={match['match_id']}&lang=en")
    live = f"{served.base}/watch/table.html?id={table_id}"
    assert wait(browser, lambda d: match_links(d)) == [
        {"table": table_id, "status": "live", "live": live, "replay": f"{live}&at=1", "audits": []}]
    browser.find_element(By.CSS_SELECTOR, "#match-tables a.live-link").click()
    wait(browser, lambda d: text_of(d, "live-state") == "Live")
    served.start_workers()
    served.follow_to_end(table_id, organiser)
    deals = served.http.get(f"/tables/{table_id}/deals", headers=organiser).json()
    end = served.http.get(f"/tables/{table_id}/view", headers=organiser).json()
    played = [d["deal_no"] for d in deals if d["finished"] and d["contract"]]
    assert played and end["phase"] == "ended"

    # From the start page to the championship, its bracket, its match: the match's table and where it leads.
    browser.get(f"{served.base}/watch/?lang=en")
    wait(browser, lambda d: d.find_elements(By.LINK_TEXT, "Qassim Night 1"))[0].click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#bracket g.match[data-match]"))[0].click()
    links = wait(browser, lambda d: match_links(d))
    base = f"{served.base}/watch"
    assert links == [{"table": table_id, "status": "finished", "live": None, "replay": f"{base}/table.html?id={table_id}&at=1",
                      "audits": [[n, f"{base}/audit.html?table={table_id}&deal={n}"] for n in played]}]
    assert refused(served) == []
    # Its audit, then its replay, each a click away.
    browser.find_element(By.CSS_SELECTOR, f"#match-tables a.audit-link[data-deal='{played[-1]}']").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#actions li.action"))
    assert text_of(browser, "valid") == "✓"
    browser.back()
    wait(browser, lambda d: match_links(d))
    browser.find_element(By.CSS_SELECTOR, "#match-tables a.replay-link").click()
    wait(browser, lambda d: (text_of(d, "position") or "").startswith("Position 1 of "))
    # The panel opens from a link naming the match (a player's results link there), in four looks; the
    # names with digits isolated, drawn in their own order inside Arabic.
    url = f"{served.base}/watch/championship.html?id={cid}&match={match['match_id']}"
    seen = in_four_looks(browser, url, "bracket-match-links", lambda d: match_links(d),
                         lambda d: reads_left_to_right(d, "#match-panel .teams", BOTS[0]))
    assert seen == {"en": True, "ar": True}

    # The replay's end: the final score and who won, each deal's result, the last trick and who took it.
    browser.get(f"{served.base}/watch/table.html?id={table_id}&lang=en")
    wait(browser, lambda d: d.find_elements(By.ID, "game-end"))
    assert browser.find_element(By.ID, "final-score").get_attribute("data-scores") == ",".join(map(str, end["scores"]))
    final = browser.execute_script("return [...document.querySelectorAll('#final-score .final-team')].map(p => "
                                   "[p.querySelector('.final-name').innerText, p.querySelector('.final-points').innerText, "
                                   "p.classList.contains('won')])")
    names = {u["user_id"]: u["name"] for u in served.http.get(
        "/users", params={"ids": ",".join(end["seats"])}, headers=organiser).json()}
    assert final == [[f"{names[end['seats'][k]]} and {names[end['seats'][k + 2]]}", str(end["scores"][k]),
                      end["winner"] == k] for k in (0, 1)]
    winner = text_of(browser, "winner")
    assert winner == "nobody won" if end["winner"] is None else winner.startswith("won by ")
    rows = browser.execute_script("return [...document.querySelectorAll('#deal-results tr[data-deal]')]"
                                  ".map(r => [Number(r.dataset.deal), r.dataset.points])")
    assert rows == [[d["deal_no"], ",".join(map(str, d["game_points"] or []))] for d in deals]
    last = served.http.get(f"/tables/{table_id}/state", params={"at": end["version"]}, headers=organiser).json()
    trick = last["deal"]["tricks"][-1]
    shown = browser.execute_script("return [...document.querySelectorAll('#last-trick .card')].map(c => c.dataset.card)")
    assert shown == [p["card"] for p in trick["cards"]]
    assert browser.find_elements(By.CSS_SELECTOR, "#board") == []          # no empty green box
    seen = in_four_looks(browser, f"{served.base}/watch/table.html?id={table_id}", "replay-end",
                         lambda d: d.find_elements(By.ID, "game-end"),
                         lambda d: (reads_left_to_right(d, "#title", BOTS[0]), misordered(d, "main")))
    assert seen == {"en": (True, []), "ar": (True, [])}

    # The audit's list: a Hokum's suit as its symbol and name, never a letter; the players' names isolated.
    n = next((d["deal_no"] for d in deals if d["contract"] and d["contract"]["type"] == "hokum"), played[-1])
    url = f"{served.base}/watch/audit.html?table={table_id}&deal={n}"
    seen = in_four_looks(browser, url, "audit-list", actions_shown,
                         lambda d: (text_of(d, "actions"), misordered(d, "main")))
    for lang in ("en", "ar"):
        actions, wrong = seen[lang]
        assert not re.search(r"\b[Hh]okum [SHDC]\b", actions), actions
        assert wrong == [] and re.search(r"\d [A-Z]", actions)
    assert same_origin(requested_urls(browser), served.base) == []


def test_the_audit_says_a_hokum_suit_as_its_symbol_and_word(served, browser):
    # Bot tables until one deal was bought in Hokum (most games have several).
    for _ in range(4):
        table_id, referee = bot_table(served)
        served.start_workers()
        served.follow_to_end(table_id, referee)
        hokum = [d for d in served.http.get(f"/tables/{table_id}/deals", headers=referee).json()
                 if d["contract"] and d["contract"]["type"] == "hokum" and d["finished"]]
        if hokum:
            break
    else:
        pytest.fail("four bot games without a Hokum deal")
    deal = hokum[0]
    suit = deal["contract"]["suit"]
    symbol, en_word, ar_word = {"S": ("♠", "spades", "سبيت"), "H": ("♥", "hearts", "هاص"),
                                "D": ("♦", "diamonds", "ديمن"), "C": ("♣", "clubs", "شريا")}[suit]
    url = f"{served.base}/watch/audit.html?table={table_id}&deal={deal['deal_no']}"
    seen = in_four_looks(browser, url, "audit-suits", actions_shown,
                         lambda d: text_of(d, "actions"))
    assert f"hokum {symbol} {en_word}" in seen["en"] and not re.search(r"\b[Hh]okum [SHDC]\b", seen["en"])
    assert f"{symbol} {ar_word}" in seen["ar"] and not re.search(r"\b[SHDC]\b", seen["ar"].replace("Bot", ""))


# ---------------------------------------------------------------- a player's results

async def test_a_players_results_name_the_opponents(served, browser, pool):
    cid, sim = await knock_out(pool, 8)
    await ProjectionRunner(pool, ratings_read_model()).catch_up()
    champion = sim.state.champion
    player = sim.state.teams[champion].players[0]
    # His matches, newest first: the teams he met, as the bracket names them.
    beaten = []
    for rnd in sim.state.rounds:
        for m in rnd.matches:
            if champion in (m.team_a, m.team_b):
                beaten.append(m.team_b if m.team_a == champion else m.team_a)
    browser.get(f"{served.base}/watch/player.html?id={player}&lang=en")
    wait(browser, lambda d: d.execute_script("return document.getElementById('main').dataset.loaded === 'true'"))
    shown = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#recent li .opponents")]
    assert shown == [f"against {team_name(sim, t)}" for t in reversed(beaten)]
    seen = in_four_looks(browser, f"{served.base}/watch/player.html?id={player}", "player-opponents",
                         lambda d: d.find_elements(By.CSS_SELECTOR, "#recent li .opponents"),
                         lambda d: d.find_element(By.CSS_SELECTOR, "#recent li .opponents").text)
    assert seen["ar"] == f"ضد {team_name(sim, beaten[-1])}"
    assert ISOLATES not in seen["ar"]
