"""The ratings' pages in a real browser: a game's leaderboard (as the API ranks it, a page at a time) and a
player's page (his rating, his rated matches linked to the bracket, his championships), in four looks."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from services.eventstore import ProjectionRunner
from services.ratings import ratings_read_model
from tests.stored_championship import knock_out, player_name
from tests.web.conftest import in_four_looks, requested_urls, same_origin
from tests.web.people import wait


def loaded(driver) -> bool:
    return driver.execute_script("return document.getElementById('main').dataset.loaded === 'true'")


async def test_the_leaderboard_and_a_players_page_show_the_ratings(served, browser, pool):
    cid, sim = await knock_out(pool, 16)
    await ProjectionRunner(pool, ratings_read_model()).catch_up()
    _, headers = served.user("reader")
    api = served.http.get("/ratings/baloot", params={"limit": 50}, headers=headers).json()["rows"]

    browser.get(f"{served.base}/watch/")
    wait(browser, lambda d: d.find_elements(By.ID, "ratings-link"))[0].click()
    wait(browser, loaded)
    rows = browser.find_elements(By.CSS_SELECTOR, "#ratings tbody tr")
    assert [r.get_attribute("data-user") for r in rows] == [r["user_id"] for r in api]
    assert [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows] == [player_name(r["user_id"]) for r in api]
    assert rows[0].find_elements(By.TAG_NAME, "td")[2].text == f"{api[0]['ordinal']:.1f}"
    # Pages of ten: the second starts where the first ended.
    browser.get(f"{served.base}/watch/ratings.html?game=baloot&limit=10")
    wait(browser, loaded)
    browser.find_element(By.ID, "next-page").click()
    wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#ratings tbody tr").get_attribute("data-user")
         == api[10]["user_id"])
    in_four_looks(browser, f"{served.base}/watch/ratings.html?game=baloot", "ratings", loaded)

    # The best player's page: his rating, four rated wins linked to the bracket, the championship.
    best = api[0]["user_id"]
    browser.get(f"{served.base}/watch/ratings.html?game=baloot")
    wait(browser, loaded)
    browser.find_element(By.LINK_TEXT, player_name(best)).click()
    wait(browser, loaded)
    assert browser.find_element(By.ID, "player-name").text == player_name(best)
    assert browser.find_element(By.CSS_SELECTOR, "#player-ratings td[data-ordinal]").text == f"{api[0]['ordinal']:.1f}"
    recent = browser.find_elements(By.CSS_SELECTOR, "#recent li")
    assert len(recent) == 4 and all("won" in li.text for li in recent)
    href = recent[0].find_element(By.TAG_NAME, "a").get_attribute("href")
    assert href.endswith(f"championship.html?id={cid}&match={recent[0].get_attribute('data-match')}")
    assert browser.find_element(By.CSS_SELECTOR, "#played-in a").text == "Riyadh Cup 16"
    in_four_looks(browser, f"{served.base}/watch/player.html?id={best}", "player", loaded)
    # Nobody by that id: said so.
    browser.get(f"{served.base}/watch/player.html?id=nobody")
    wait(browser, loaded)
    assert browser.find_element(By.ID, "player-error").text == "No such player."
    assert same_origin(requested_urls(browser), served.base) == []
