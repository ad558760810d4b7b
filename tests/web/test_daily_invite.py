"""The daily page before its close, in a real browser: it asks the server only what the reader may see (no
refused request), and invites him to play today's deal: a visitor to sign in (and back to the page), a player
to his next board, which opens at his table; after a board, its result and its field, the rest still hidden."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from selenium.webdriver.common.by import By

from services.daily.projection import daily_read_model
from services.eventstore import ProjectionRunner
from services.platform import Platform
from tests.api.test_tables import Ids
from tests.daily.conftest import Clock
from tests.web.conftest import in_four_looks
from tests.web.people import PASSWORD, as_browser, type_into, version_of, wait
from tests.web.test_daily_page import finish_board
from tests.web.test_watch_ways import refused

BOARDS = 2


@pytest.fixture
def clock() -> Clock:
    # The server's day is the browser's (the start page links today's deal by the browser's UTC day).
    return Clock(dt.datetime.now(dt.timezone.utc))


@pytest.fixture
def daily_options(clock) -> dict:
    return {"boards": BOARDS, "clock": clock}


def loaded(driver) -> bool:
    return driver.execute_script("return document.getElementById('main').dataset.loaded === 'true'")


def invitation(driver) -> tuple[str, str, str | None]:
    """The invitation's way in: its tag, its text and where it leads (read in one go)."""
    return tuple(driver.execute_script(
        "const a = document.getElementById('daily-play');"
        "return a ? [a.tagName, a.textContent, a.getAttribute('href')] : [null, null, null]"))


async def test_the_daily_page_before_its_close_invites_to_play_and_asks_nothing_it_would_be_refused(
        served, browser, pool):
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    page = f"{served.base}/watch/daily.html?day={today}&profile=saudi"
    # A visitor, from the start page: today's deal, what is hidden until when, and an invitation to sign in and play.
    browser.get(f"{served.base}/watch/?lang=en")
    served.recorder.responses.clear()
    wait(browser, lambda d: d.find_elements(By.ID, "to-daily"))[0].click()
    wait(browser, loaded)
    assert browser.current_url == page
    tag, text, href = invitation(browser)
    assert (tag, text) == ("A", "Sign in to play today's deal")
    assert href == f"/play/?next=%2Fwatch%2Fdaily.html%3Fday%3D{today}%26profile%3Dsaudi"
    assert "the live leaderboard and the results of its 2 boards" in browser.find_element(By.ID, "hidden-note").text
    assert browser.find_elements(By.CSS_SELECTOR, ".board-field, #leaderboard, .refusal") == []
    assert refused(served) == []
    in_four_looks(browser, page, "daily-invite-visitor", loaded)
    assert refused(served) == []

    # He follows it: signs up where one plays, and is back on the day's page, invited to his first board.
    browser.get(page + "&lang=en")
    wait(browser, loaded)
    browser.find_element(By.ID, "daily-play").click()
    wait(browser, lambda d: d.find_elements(By.ID, "sign-up"))
    type_into(browser, "new-login", "huda")
    type_into(browser, "display-name", "Huda 7")
    type_into(browser, "new-password", PASSWORD)
    type_into(browser, "new-password-2", PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "#sign-up button[type=submit]").click()
    wait(browser, lambda d: d.current_url.startswith(page) and loaded(d) and invitation(d)[0] == "BUTTON")
    assert invitation(browser)[1] == "Play today's deal"
    # The board opens at his table.
    served.recorder.responses.clear()
    browser.find_element(By.ID, "daily-play").click()
    wait(browser, lambda d: "/play/table.html?id=daily." in d.current_url and version_of(d) is not None)
    table_id = browser.current_url.split("id=")[1]
    assert table_id.startswith(f"daily.{today}.saudi.1.")
    # He plays it out (his choices sent as his browser would; the bots as the workers' bot actor).
    tables = (await Platform.on(pool)).tables
    with as_browser(browser, served.base) as http:
        await finish_board(http, tables, table_id, {}, random.Random(46), Ids("huda"))
        margin = http.get(f"/daily/{today}/saudi/entry").json()["played"][0]["margin"]
    await ProjectionRunner(pool, daily_read_model()).catch_up()         # what the workers' projection does

    # Back on the day's page: his board's result and field, the next board offered, the leaderboard still hidden
    # (he has not played them all), and nothing asked that the server refuses.
    served.recorder.responses.clear()
    browser.get(page + "&lang=en")
    wait(browser, loaded)
    assert invitation(browser)[:2] == ("BUTTON", "Play board 2 of 2")
    mine = browser.find_element(By.CSS_SELECTOR, "#my-boards li[data-board='1']").text
    assert mine == f"Board 1 — {'+' if margin > 0 else ''}{margin}"
    shown = browser.execute_script("return [...document.querySelectorAll('#board-1 tr[data-margin]')]"
                                   ".map(r => [Number(r.dataset.margin), Number(r.dataset.count)])")
    assert shown == [[margin, 1]]                                        # his own result, the only one yet
    assert browser.find_elements(By.CSS_SELECTOR, "#board-2, #leaderboard") == []
    assert "the live leaderboard and the results of its 1 boards" in browser.find_element(By.ID, "hidden-note").text
    assert refused(served) == []
    in_four_looks(browser, page, "daily-before-close", loaded)
    assert refused(served) == []
