"""A Balut (dice game) table on the spectator pages, in a real browser: a table of two bot
seats followed live to its end, its totals and rows checked against the game's record (``GET
/tables/{id}/record``, summed here, not by the page's code), a step back in the replay, the Arabic page right
to left, and the start page listing the table as a Balut table. Screenshots in tests/web/screenshots/."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from tests.web.conftest import requested_urls, same_origin, screenshot
from tests.web.test_pages import text_of, wait

ROWS = ("fours", "fives", "sixes", "straight", "house", "choice", "balut")
LONG = 180


def balut_bot_table(served, players: int = 2) -> tuple[str, dict]:
    """A Balut table of bot seats opened by a referee (who does not play), its bots at full speed (no pace);
    returns its id and his headers."""
    _, referee = served.user("referee")
    r = served.http.post("/tables", headers=referee, json={"game": "balut", "seats": ["bot"] * players,
                                                           "profile": "stc", "bot_pace_seconds": 0})
    assert r.status_code == 201 and r.json()["status"] == "live", r.text
    return r.json()["table_id"], referee


def shown(driver) -> dict:
    """What the page shows, read in one go: phase, version, per seat the total and each row's cell text."""
    return driver.execute_script("""
      const game = document.getElementById("game");
      if (!game || !document.getElementById("sheets")) return null;
      const totals = [...document.querySelectorAll("#sheets [data-total]")].map(e => Number(e.innerText));
      const rows = {};
      for (const tr of document.querySelectorAll("#sheets tr[data-row]"))
        rows[tr.dataset.row] = [...tr.querySelectorAll("td")].map(td => td.innerText.trim());
      return {phase: game.dataset.phase, version: Number(game.dataset.version), totals, rows,
              dir: document.documentElement.dir};
    """)


def from_record(record: dict) -> tuple[list[int], dict[str, list[int]]]:
    """Per seat the sum of the points of every turn in the record, and each row's points by seat."""
    totals = [0] * record["players"]
    rows: dict[str, list[int]] = {row: [0] * record["players"] for row in ROWS}
    for turn in record["turns"]:
        totals[turn["seat"]] += turn["points"]
        rows[turn["category"]][turn["seat"]] += turn["points"]
    return totals, rows


def test_a_balut_table_of_bots_live_to_its_end_shows_the_record_totals_and_steps_back(served, browser):
    table_id, referee = balut_bot_table(served)
    browser.get(f"{served.base}/watch/table.html?id={table_id}")
    first = wait(browser, shown)
    # The workers have not started: no throw yet, every row open.
    assert first["phase"] == "playing" and first["totals"] == [0, 0]
    assert text_of(browser, "live-state") == "Live"       # read in one go: the live page redraws itself
    assert all(cell == "·" for cells in first["rows"].values() for cell in cells)
    browser.execute_script("window.notReloaded = true")
    served.start_workers()

    end = wait(browser, lambda d: (s := shown(d)) and s["phase"] == "ended" and s, LONG)
    screenshot(browser, "balut-table")
    assert browser.execute_script("return window.notReloaded") is True     # followed live, never reloaded
    last = served.follow_to_end(table_id, referee)
    r = served.http.get(f"/tables/{table_id}/record", headers=referee)
    assert r.status_code == 200, r.text
    record = r.json()
    assert record["format"] == "balut-game/1" and len(record["turns"]) == 2 * len(ROWS)
    totals, rows = from_record(record)
    assert end["totals"] == totals
    assert {row: [int(c) for c in cells] for row, cells in end["rows"].items()} == rows
    points = browser.execute_script(
        "return [...document.querySelectorAll('#sheets [data-points]')].map(e => Number(e.innerText))")
    assert points == totals                     # STC: the final points are the sheet's total
    assert same_origin(requested_urls(browser), served.base) == []

    # The replay of the finished game opens at its last position, with the same sheets; stepping back, the
    # first position whose sheets differ is the one before the record's last turn wrote its row.
    browser.get(f"{served.base}/watch/table.html?id={table_id}")
    wait(browser, lambda d: (s := shown(d)) and s["version"] == last)
    assert shown(browser)["totals"] == totals and shown(browser)["rows"] == end["rows"]
    assert browser.find_elements(By.ID, "deal") == [] and browser.find_elements(By.ID, "jump") == []
    final_turn = record["turns"][-1]
    expected = list(totals)
    expected[final_turn["seat"]] -= final_turn["points"]
    expected_rows = {row: list(cells) for row, cells in end["rows"].items()}
    expected_rows[final_turn["category"]][final_turn["seat"]] = "·"
    version = last
    while True:
        browser.find_element(By.ID, "prev").click()
        version -= 1
        now = wait(browser, lambda d: (s := shown(d)) and s["version"] == version and s)
        assert "at=" + str(version) in browser.current_url
        if now["rows"] != end["rows"]:
            break
    assert now["rows"] == expected_rows and now["totals"] == expected and now["phase"] == "playing"
    screenshot(browser, "balut-replay")
    # "Go to round 4": the first position of round 4, each sheet with exactly three rows written (one a turn).
    browser.find_element(By.ID, "round-no").clear()
    browser.find_element(By.ID, "round-no").send_keys("4")
    browser.find_element(By.CSS_SELECTOR, "#jump-round button").click()
    four = wait(browser, lambda d: (s := shown(d)) and s["version"] < version and s)
    assert text_of(browser, "balut-round") == "4"
    written = [sum(cells[seat] != "·" for cells in four["rows"].values()) for seat in range(2)]
    assert written == [3, 3]
    browser.find_element(By.ID, "prev").click()
    before = wait(browser, lambda d: (s := shown(d)) and s["version"] == four["version"] - 1)
    assert before and text_of(browser, "balut-round") == "3"

    # The position's link shows the same position.
    browser.get(f"{served.base}/watch/table.html?id={table_id}&at={version}")
    assert wait(browser, lambda d: (s := shown(d)) and s["version"] == version and s)["totals"] == expected

    # The first position: the table opened, nothing written.
    browser.get(f"{served.base}/watch/table.html?id={table_id}&at=1")
    start = wait(browser, lambda d: (s := shown(d)) and s["version"] == 1 and s)
    assert start["totals"] == [0, 0] and all(c == "·" for cells in start["rows"].values() for c in cells)
    assert browser.find_element(By.ID, "prev").get_attribute("disabled") is not None

    # Arabic: right to left, the rows in the rules' words.
    browser.get(f"{served.base}/watch/table.html?id={table_id}&lang=ar")
    ar = wait(browser, lambda d: (s := shown(d)) and s["version"] == last and s)
    assert ar["dir"] == "rtl" and ar["totals"] == totals
    row_names = browser.execute_script(
        "return [...document.querySelectorAll('#sheets tr[data-row] th')].map(e => e.innerText.trim())")
    assert row_names == ["الأربعات", "الخمسات", "الستات", "المتتالية", "الفل هاوس", "الاختيار", "بالوت"]
    screenshot(browser, "balut-table-ar")

    # The start page lists it among the finished tables, as a Balut table.
    browser.get(f"{served.base}/watch/?lang=en")
    link = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'a[data-table="{table_id}"]'))[0]
    assert "Balut" in link.find_element(By.XPATH, "..").text
