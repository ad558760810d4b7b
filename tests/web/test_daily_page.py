"""The daily deal's page in a real browser: before the close it shows the leaderboard and
the server's refusal of every board's field, and no card of any board reaches the browser; after the close
it shows each board's field (equal to the one the test computes from the boards' own tables), the leaderboard
paged by rank in both scorings, and links to the boards' replays."""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter

import httpx
import pytest
from selenium.webdriver.common.by import By

from domain.baloot.cards import card_name
from services.daily.projection import daily_read_model
from services.eventstore import ProjectionRunner
from services.platform import Platform
from services.tables import TableService
from services.tables.pending import pending_work
from tests.api.test_tables import Ids, choose
from tests.daily.conftest import DAY, Clock
from tests.daily.test_daily_api import act_as_bot
from tests.web.conftest import in_four_looks
from tests.web.test_pages import game_version, wait

PROFILE = "saudi"
BOARDS = 2


def play(http: httpx.Client, headers: dict) -> str:
    r = http.post(f"/daily/{PROFILE}/play", headers=headers)
    assert r.status_code == 201, r.text
    return r.json()["table_id"]


async def finish_board(http: httpx.Client, tables: TableService, table_id: str, headers: dict,
                       rng: random.Random, ids: Ids) -> None:
    """Play the board out: the player through the served API, the bots as the workers' bot actor does."""
    for _ in range(500):
        table = await tables.load(table_id)
        if table.game.phase == "ended":
            return
        work = pending_work(table)
        if work is not None and work.kind == "bot":
            await act_as_bot(tables, table_id, table, work.seat)
            continue
        r = http.get(f"/tables/{table_id}/view", headers=headers)
        assert r.status_code == 200, r.text
        action = choose(r.json()["deal"]["legal_actions"], rng)
        r = http.post(f"/tables/{table_id}/commands", headers=headers,
                      json={"command_id": ids(), "action": action})
        assert r.status_code == 200, r.text
    raise AssertionError("the board never ended")


def shown_field(driver, board: int) -> list[tuple[int, int]]:
    """The field shown for a board, read in one go (the page redraws itself)."""
    return [tuple(x) for x in driver.execute_script(
        "return [...document.querySelectorAll(`#board-${arguments[0]} tr[data-margin]`)]"
        ".map(e => [Number(e.dataset.margin), Number(e.dataset.count)])", board)]


def shown_ranking(driver) -> tuple[str | None, str | None, list[str]]:
    """The leaderboard shown: its scoring, its `after` and its players in order, read in one go."""
    scoring, after, users = driver.execute_script(
        "const t = document.getElementById('leaderboard');"
        "return [t?.dataset.scoring ?? null, t?.dataset.after ?? null,"
        " [...document.querySelectorAll('#leaderboard tr[data-user]')].map(e => e.dataset.user)]")
    return scoring, after, users


def loaded(driver) -> bool:
    return driver.execute_script("return document.getElementById('main').dataset.loaded === 'true'")


@pytest.fixture
def clock() -> Clock:
    return Clock(dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc))


@pytest.fixture
def daily_options(clock) -> dict:
    return {"boards": BOARDS, "clock": clock}


async def test_the_daily_page_hides_the_boards_until_the_close_then_shows_each_field(served, browser, pool, clock):
    players = [served.user(f"player {i}") for i in range(3)]
    tables = (await Platform.on(pool)).tables
    rng = random.Random(16)
    boards: dict[str, list[str]] = {}
    for uid, headers in players:
        ids = Ids(uid)
        boards[uid] = []
        for _ in range(BOARDS):
            tid = play(served.http, headers)
            await finish_board(served.http, tables, tid, headers, rng, ids)
            boards[uid].append(tid)
    await ProjectionRunner(pool, daily_read_model()).catch_up()
    # The expected fields, from the boards' tables: the margin of seat 0's team, and how many had it.
    expected: dict[int, list[tuple[int, int]]] = {}
    cards: set[str] = set()
    for n in range(1, BOARDS + 1):
        margins = Counter()
        for uid, _ in players:
            table = await tables.load(boards[uid][n - 1])
            gp = table.game.results[0]
            margins[gp[0] - gp[1]] += 1
            cards |= {card_name(c) for c in table.game.deal.deck}
        expected[n] = sorted(margins.items(), reverse=True)
    assert len(cards) == 32

    # The start page links to the day's page of each profile.
    browser.get(f"{served.base}/watch/")
    link = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#daily a[data-profile={PROFILE}]"))[0]
    href = link.get_attribute("href")
    assert href.startswith(f"{served.base}/watch/daily.html?day=") and href.endswith(f"&profile={PROFILE}")

    # Before the close, to a spectator who played no board: one note of what is hidden and until when, in his
    # own time zone; nothing of a board, no leaderboard, no empty sections.
    url = f"{served.base}/watch/daily.html?day={DAY}&profile={PROFILE}&limit=2"
    browser.get(url)
    wait(browser, loaded)
    assert browser.find_element(By.ID, "set-status").get_attribute("data-closed") == "false"
    note = browser.find_element(By.ID, "hidden-note")
    assert note.get_attribute("data-rule") == "board_hidden"
    assert "the live leaderboard and the results of its 2 boards" in note.text
    assert "Whoever has played all 2 boards of the day" in note.text
    closes = browser.execute_script(
        "return new Intl.DateTimeFormat('en', {year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', "
        "minute: '2-digit', timeZoneName: 'short'})"
        f".format(new Date('{served.http.get(f'/daily/{DAY}/{PROFILE}', headers=players[0][1]).json()['closes_at']}'))")
    assert note.text.startswith(f"Hidden until {closes},")
    assert browser.find_elements(By.CSS_SELECTOR, ".board-field, #leaderboard, .refusal") == []
    assert browser.find_elements(By.CSS_SELECTOR, "a[data-table]") == []
    in_four_looks(browser, url, "daily-open", loaded)
    bodies = served.recorder.api_bodies()
    # What the day's rule hides is not asked: no field, no leaderboard, nothing refused (test_daily_invite.py).
    assert not any(path.endswith(("/field", "/leaderboard")) for path, _ in bodies)
    assert not [e for e in served.recorder.responses if e["status"] and 400 <= e["status"] < 500]
    leaked = {(path, c) for path, body in bodies for c in cards if f'"{c}"'.encode() in body}
    assert not leaked, leaked

    # After the close: every board's field, equal to the one computed from the tables, and the API's.
    clock.now = dt.datetime(2026, 12, 2, 1, 0, tzinfo=dt.timezone.utc)
    browser.get(url)
    wait(browser, loaded)
    assert browser.find_element(By.ID, "set-status").get_attribute("data-closed") == "true"
    for n in range(1, BOARDS + 1):
        api = served.http.get(f"/daily/{DAY}/{PROFILE}/boards/{n}/field", headers=players[0][1]).json()
        assert [(f["margin"], f["count"]) for f in api] == expected[n]
        assert shown_field(browser, n) == expected[n]
        assert browser.find_elements(By.CSS_SELECTOR, f"#board-{n} .refusal") == []
    # The leaderboard, paged by rank (keyset `after`), in both scorings, equals the API's full ranking.
    for scoring in ("mp", "imps"):
        full = [r["user_id"] for r in served.http.get(
            f"/daily/{DAY}/{PROFILE}/leaderboard", params={"scoring": scoring}, headers=players[0][1]).json()["rows"]]
        browser.find_element(By.CSS_SELECTOR, f"button[data-scoring={scoring}]").click()
        first = wait(browser, lambda d: (lambda r: r[:2] == (scoring, "0") and r[2])(shown_ranking(d)))
        browser.find_element(By.ID, "next-page").click()
        rest = wait(browser, lambda d: (lambda r: r[:2] == (scoring, "2") and r[2])(shown_ranking(d)))
        assert first + rest == full
        assert browser.find_element(By.ID, "next-page").get_attribute("disabled") is not None
    # The replay links of the page's players lead to their boards' tables, which a spectator may now see.
    page_players = shown_ranking(browser)[2]
    links = [e.get_attribute("data-table") for e in browser.find_elements(By.CSS_SELECTOR, "#board-1 a[data-table]")]
    assert links == [boards[uid][0] for uid in page_players]
    # In Arabic, right to left, the same field.
    browser.get(f"{url}&lang=ar")
    wait(browser, loaded)
    assert browser.execute_script("return document.documentElement.dir") == "rtl"
    assert browser.find_element(By.CSS_SELECTOR, "#board-1 h3").text == "التوزيعة 1"
    assert shown_field(browser, 1) == expected[1]
    in_four_looks(browser, url.replace("limit=2", "limit=50"), "daily", loaded)
    browser.get(url.replace("limit=2", "limit=50") + "&lang=en")
    wait(browser, loaded)
    browser.find_element(By.CSS_SELECTOR, f"#board-2 a[data-table='{boards[players[0][0]][1]}']").click()
    wait(browser, lambda d: game_version(d) is not None)
