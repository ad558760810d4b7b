"""Spectating and replays in a real browser: a live all-bot table, a finished deal stepped to a
trick and reloaded from its link, hidden cards that stay hidden (the championship's page: test_bracket_page).
Each test saves a screenshot in tests/web/screenshots/."""

from __future__ import annotations

import json
import random

import pytest
from selenium.webdriver.common.by import By

from tests.stored_championship import knock_out, team_name
from tests.web.conftest import in_four_looks, requested_urls, same_origin, screenshot
from tests.web.people import read, wait


def cards(driver, css: str) -> list[str]:
    """The cards shown by the elements matching ``css``, read in one go (the live page redraws itself)."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => e.dataset.card)", css)


def count(driver, css: str) -> int:
    return driver.execute_script("return document.querySelectorAll(arguments[0]).length", css)


def game_version(driver) -> int | None:
    version = driver.execute_script("return document.getElementById('game')?.dataset.version ?? null")
    return None if version is None else int(version)


def text_of(driver, element_id: str) -> str:
    return driver.execute_script("return document.getElementById(arguments[0])?.innerText ?? null", element_id)


def bot_table(served, hands_policy: str = "after_deal") -> tuple[str, dict]:
    """An all-bot table opened by a referee (who does not play), its bots at full speed (no pace); returns its
    id and the referee's headers."""
    _, referee = served.user("referee")
    r = served.http.post("/tables", headers=referee, json={"seats": ["bot"] * 4, "hands_policy": hands_policy,
                                                           "bot_pace_seconds": 0})
    assert r.status_code == 201 and r.json()["status"] == "live", r.text
    return r.json()["table_id"], referee


def test_a_live_all_bot_table_shows_the_cards_as_the_bots_play(served, browser):
    table_id, referee = bot_table(served)
    browser.get(f"{served.base}/watch/table.html?id={table_id}")
    wait(browser, lambda d: game_version(d) is not None)
    # The workers have not started: no bot has acted, no card is on the table.
    assert cards(browser, "#trick .card, #tricks .card") == []
    assert text_of(browser, "live-state") == "Live"
    browser.execute_script("window.notReloaded = true")
    served.start_workers()
    seen: list[str] = []

    def three_tricks_shown(d) -> bool:
        # Read in the same look as the count: the bots play on, and a new deal empties the list.
        seen[:] = cards(d, "#tricks .card")
        return len(seen) >= 12

    wait(browser, three_tricks_shown)
    screenshot(browser, "live-table")
    assert browser.execute_script("return window.notReloaded") is True      # the same page, never reloaded
    assert len(seen) >= 12 and len(set(seen)) == len(seen)
    # It keeps up to the end of the game, still without a reload.
    last = served.follow_to_end(table_id, referee)
    wait(browser, lambda d: game_version(d) == last)
    assert browser.execute_script("return window.notReloaded") is True
    assert "won by Bot (normal) and Bot (normal)" in text_of(browser, "score") or "nobody won" in text_of(browser, "score")
    # Its end, where the board would be empty: every deal's result (the page still never reloaded).
    deals = served.http.get(f"/tables/{table_id}/deals", headers=referee).json()
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#game-end #deal-results tr[data-deal]")) == len(deals))
    assert browser.execute_script("return window.notReloaded") is True
    assert same_origin(requested_urls(browser), served.base) == []


def test_a_finished_deal_steps_to_trick_5_and_its_link_shows_the_same_position(served, browser):
    table_id, referee = bot_table(served)
    served.start_workers()
    last = served.follow_to_end(table_id, referee)
    deal = next(d for d in served.http.get(f"/tables/{table_id}/deals", headers=referee).json() if d["contract"])
    first = deal["first_version"]                   # the first deal that was played (not all passes)
    browser.get(f"{served.base}/watch/table.html?id={table_id}&at={first}")
    wait(browser, lambda d: game_version(d) == first)
    assert browser.find_element(By.ID, "position").text == f"Position {first} of {last}"
    browser.find_element(By.ID, "next").click()
    wait(browser, lambda d: game_version(d) == first + 1)
    browser.find_element(By.ID, "prev").click()
    wait(browser, lambda d: game_version(d) == first)

    box = browser.find_element(By.ID, "trick-no")
    box.clear()
    box.send_keys("5")
    browser.find_element(By.CSS_SELECTOR, "#jump button").click()
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#tricks li")) == 5)
    at = game_version(browser)
    # The first position with five tricks taken: one event earlier, four were.
    before = served.http.get(f"/tables/{table_id}/state", params={"at": at - 1}, headers=referee).json()
    assert len(before["deal"]["tricks"]) == 4 and before["deal_no"] == deal["deal_no"]
    link = browser.current_url
    assert f"at={at}" in link
    shown = read(browser, "#game")
    played = cards(browser, "#tricks .card")
    assert len(played) == 20

    browser.get(link)                                               # reload the deep link
    wait(browser, lambda d: game_version(d) == at)
    assert read(browser, "#game") == shown
    assert cards(browser, "#tricks .card") == played
    # Each trick says who led it and who won it, as the server's view has them.
    tricks = served.http.get(f"/tables/{table_id}/state", params={"at": at}, headers=referee).json()["deal"]["tricks"]
    rows = browser.find_elements(By.CSS_SELECTOR, "#tricks li")
    assert [(int(r.get_attribute("data-leader")), int(r.get_attribute("data-winner"))) for r in rows] == [
        (tr["leader"], tr["winner"]) for tr in tricks]
    assert all(r.find_element(By.CSS_SELECTOR, ".trick-winner").text.startswith("→ Bot") for r in rows)
    assert not browser.find_elements(By.CSS_SELECTOR, "#title") or "Table" not in text_of(browser, "title")
    screenshot(browser, "replay-trick-5")

    # In Arabic: right to left, the game's own words, cards labelled for screen readers in Arabic.
    browser.find_element(By.ID, "lang").click()
    wait(browser, lambda d: d.execute_script("return document.documentElement.dir") == "rtl")
    contract = browser.find_element(By.ID, "contract").text
    assert any(word in contract for word in ("حكم", "صن", "أشكل")), contract
    label = browser.find_element(By.CSS_SELECTOR, "#tricks .card").get_attribute("aria-label")
    assert any(s in label for s in ("سبيت", "هاص", "ديمن", "شريا")), label
    browser.get(link)
    wait(browser, lambda d: game_version(d) == at)
    assert browser.execute_script("return document.documentElement.lang") == "ar"
    screenshot(browser, "replay-trick-5-ar")

    # The game's end says who won it, by the teams' players.
    browser.get(f"{served.base}/watch/table.html?id={table_id}&at={last}")
    wait(browser, lambda d: game_version(d) == last)
    end = served.http.get(f"/tables/{table_id}/view", headers=referee).json()
    said = text_of(browser, "score")
    assert ("فاز " in said) == (end["winner"] is not None), said
    # A table that does not exist: a page that says so.
    browser.get(f"{served.base}/watch/table.html?id=nosuchtable")
    assert wait(browser, lambda d: d.find_elements(By.ID, "not-found"))[0].text == "لا توجد طاولة بهذا الرابط"
    # Both pages in English and Arabic, on a desktop and a phone.
    in_four_looks(browser, link, "replay", lambda d: game_version(d) == at)
    in_four_looks(browser, f"{served.base}/watch/table.html?id=nosuchtable", "table-not-found",
                  lambda d: d.find_elements(By.ID, "not-found"))


def choose(actions: list[dict], rng: random.Random) -> dict:
    """A legal action that keeps the deal going: no double, no Sawa claim, no Qayd."""
    calm = [a for a in actions if a["type"] not in ("double", "sawa", "qayd")]
    return rng.choice(calm) if calm else next(a for a in actions if a.get("call") == "pass")


def act_until(served, table_id: str, players: list[dict], done) -> dict:
    """Play for the seat whose turn it is, each with its own token, until ``done(view)``; returns the view."""
    rng = random.Random(table_id)
    for n in range(400):
        view = served.http.get(f"/tables/{table_id}/view", headers=players[0]).json()
        if done(view):
            return view
        seat = view["deal"]["turn"]
        mine = served.http.get(f"/tables/{table_id}/view", headers=players[seat]).json()
        r = served.http.post(f"/tables/{table_id}/commands", headers=players[seat],
                             json={"command_id": f"v-{view['version']}", "action": choose(mine["deal"]["legal_actions"], rng)})
        assert r.status_code == 200, r.text
    raise AssertionError("the table never got there")


def hidden_cards(served, table_id: str, players: list[dict]) -> set[str]:
    """The cards still in the players' hands that nothing has shown (no declared project, not the face-up card)."""
    held, shown = set(), set()
    for seat, headers in enumerate(players):
        deal = served.http.get(f"/tables/{table_id}/view", headers=headers).json()["deal"]
        held |= set(deal["hand"])
        shown |= {card for d in deal["declarations"] for group in (d.get("cards") or []) for card in group}
        shown |= {deal["faceup"]} if deal["faceup"] else set()
    return held - shown


def sse_views(body: bytes) -> list[dict]:
    return [json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data: {\"")]


@pytest.mark.parametrize("policy", ["never", "after_deal"])
def test_hidden_cards_stay_out_of_the_page_and_of_every_response(served, browser, policy):
    players, ids = [], []
    for i in range(4):
        uid, headers = served.user(f"player {i}")
        ids.append(uid)
        players.append(headers)
    r = served.http.post("/tables", headers=players[0], json={"seats": ids, "hands_policy": policy})
    table_id = r.json()["table_id"]
    for headers in players[1:]:
        assert served.http.post(f"/tables/{table_id}/accept", headers=headers).status_code == 200
    act_until(served, table_id, players, lambda v: len(v["deal"]["tricks"]) >= 2)

    browser.get(f"{served.base}/watch/table.html?id={table_id}")
    wait(browser, lambda d: game_version(d) is not None)
    # One more card played while the page watches: it arrives by the stream.
    before = served.http.get(f"/tables/{table_id}/view", headers=players[0]).json()
    played = act_until(served, table_id, players, lambda v: v["version"] > before["version"]
                       and v["deal"]["phase"] == "playing" and len(v["deal"]["trick"]) != len(before["deal"]["trick"]))
    wait(browser, lambda d: game_version(d) == played["version"])
    assert played["deal"]["phase"] == "playing" and played["deal_no"] == before["deal_no"]    # not ended
    screenshot(browser, f"hidden-{policy}")

    hidden = hidden_cards(served, table_id, players)
    assert len(hidden) >= 10
    # The page: hands are drawn face down, and no hidden card is anywhere in it.
    assert browser.find_elements(By.CSS_SELECTOR, ".hand .card:not(.back)") == []
    assert len(browser.find_elements(By.CSS_SELECTOR, ".hand .card.back")) == sum(played["deal"]["hand_sizes"])
    assert set(cards(browser, "[data-card]")) & hidden == set()
    source = browser.page_source
    assert [c for c in hidden if f'"{c}"' in source] == []
    # Every response the page received (the live stream included, chunk by chunk), and nothing from elsewhere.
    bodies = served.recorder.api_bodies()
    paths = {p for p, _ in bodies}
    assert {f"/tables/{table_id}/view", f"/tables/{table_id}/live"} <= paths
    for path, body in bodies:
        assert [c for c in hidden if f'"{c}"'.encode() in body] == [], path
    views = [v for p, b in bodies if p.endswith("/live") for v in sse_views(b)]
    assert views and all(v["deal"]["hands"] is None and v["deal"]["hand"] is None for v in views)
    assert same_origin(requested_urls(browser), served.base) == []


async def test_the_start_page_names_tables_by_their_players_and_championships_in_the_readers_words(
        served, browser, pool):
    cid, sim = await knock_out(pool, 8)
    noura, headers = served.user("Noura")
    r = served.http.post("/tables", headers=headers, json={"seats": [noura, "bot", "bot", "bot"]})
    assert r.status_code == 201 and r.json()["status"] == "live", r.text
    table_id = r.json()["table_id"]
    browser.get(f"{served.base}/watch/?lang=en")
    link = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#live a[data-table='{table_id}']"))[0]
    assert link.text == "Noura and Bot (normal) v Bot (normal) and Bot (normal)"
    row = browser.find_element(By.CSS_SELECTOR, f"#championships tr[data-championship='{cid}']")
    assert [td.text for td in row.find_elements(By.TAG_NAME, "td")] == [
        "Riyadh Cup 8", "knock-out", "finished", "8", "3", team_name(sim, sim.state.champion)]
    seen = in_four_looks(browser, f"{served.base}/watch/", "start", lambda d: d.find_elements(By.ID, "live"),
                         lambda d: [td.text for td in d.find_elements(By.CSS_SELECTOR, "#championships td")][1:3])
    assert seen["ar"] == ["خروج المغلوب", "انتهت"]
