"""A deal's review, the evaluation curve and a player's accuracy in a real browser: a person opens a table against
three hard bots from her lobby's form, plays its first deal by clicking what the page offers, and opens the
deal's review from the table; it says "analysing" until the analyser (run here, as the workers run it) has
valued the deal, then lists her choices with the figures of the stored analysis (read from the database here,
the costs and marks worked out here from its raw values). The replay shows the evaluation bar and the curve;
her player page her accuracy by phase. English and Arabic, desktop and phone, screenshots looked at."""

from __future__ import annotations

import random
import re

import msgspec
from selenium.webdriver.common.by import By

from services.fairplay.analyser import FairPlayAnalyser, StoredDecision
from services.platform import Platform
from tests.api.test_fairplay_reports import caught_up
from tests.api.test_review import evaluate_watched
from tests.web.conftest import in_four_looks, requested_urls, same_origin, screenshot
from tests.web.people import as_browser, sign_up, steady, wait
from tests.web.test_lobby import choose, new_table_form
from tests.web.test_play import play_until, served_me

THRESHOLDS = ((10.0, "blunder"), (5.0, "mistake"), (2.0, "inaccuracy"))     # docs/review.md


def expected_mark(cost: float) -> str:
    return next((m for least, m in THRESHOLDS if cost >= least - 1e-9), "")


def deal_over(driver) -> bool:
    return bool(driver.find_elements(By.ID, "review-link-1"))


async def test_a_player_reviews_her_deal_against_bots_and_the_figures_are_the_stored_analysis(served, browser, pool,
                                                                                               more_browsers):
    from services.eventstore import ProjectionRunner
    from services.fairplay.projection import fairplay_read_model
    served.start_workers()
    sign_up(browser, served.base, "noura", name="Noura")
    me = served_me(browser, served)
    # From her lobby: a card table with three hard bots at full speed, no clock.
    new_table_form(browser)
    choose(browser, "bot-level", "hard")
    choose(browser, "bot-pace", "0")
    choose(browser, "clock", "0")
    browser.find_element(By.CSS_SELECTOR, "#new-table button[type=submit]").click()
    wait(browser, lambda d: "/play/table.html" in d.current_url and d.find_elements(By.ID, "game"))
    table_id = browser.current_url.split("id=")[1].split("&")[0]
    play_until(browser, deal_over, random.Random(5))

    # The deal's end offers its review; she opens it (a tab of its own) before it is analysed.
    table_window = browser.current_window_handle
    steady(lambda: browser.find_element(By.ID, "review-link-1").click())
    wait(browser, lambda d: len(d.window_handles) == 2)
    browser.switch_to.window(next(w for w in browser.window_handles if w != table_window))
    wait(browser, lambda d: d.find_elements(By.ID, "review-status") or d.find_elements(By.ID, "choices"))
    if browser.find_elements(By.ID, "review-status"):
        assert browser.find_element(By.ID, "review-status").get_attribute("data-status") == "analysing"
        screenshot(browser, "review-analysing")

    # The workers' part, here: the projection queues the deal, the analyser values it (asked first: requested).
    runner = ProjectionRunner(pool, fairplay_read_model())
    await caught_up(pool, runner)
    assert await pool.fetchval("SELECT requested_at IS NOT NULL FROM fairplay_deals WHERE table_id = $1 AND "
                               "deal_no = 1", table_id)
    analyser = FairPlayAnalyser(pool, (await Platform.on(pool)).tables, processes=1, review_samples=4)   # quick
    try:
        assert await analyser.run_once() >= 1
    finally:
        await analyser.close()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#choices tbody tr") or d.find_elements(By.ID, "choices"),
         timeout=30)

    row = await pool.fetchrow("SELECT seats, decisions, view_values FROM fairplay_deals WHERE table_id = $1 AND "
                              "deal_no = 1", table_id)
    solved = msgspec.json.decode(row["view_values"])          # the choices' values from the player's view
    seat = list(row["seats"]).index(me)
    mine = [s for s in msgspec.json.decode(row["decisions"], type=list[StoredDecision]) if s.decision.seat == seat]
    shown = browser.execute_script("""return [...document.querySelectorAll('#choices tbody tr')].map(r => ({
      version: +r.dataset.version, played: r.dataset.played, best: r.dataset.best, cost: +r.dataset.cost,
      mark: r.dataset.mark, trueBest: r.dataset.trueBest, trueCost: +r.dataset.trueCost, text: r.innerText}))""")
    assert len(shown) == len(mine) > 0
    total = 0.0
    for s, d in zip(shown, mine):
        c = d.decision
        values = solved[str(c.index)]                          # every choice, bids too, sampled and solved
        cost = max(values) - values[c.legal.index(c.played)]
        total += cost
        assert (s["version"], s["played"]) == (d.version, c.played)
        assert abs(s["cost"] - cost) < 1e-3 and s["mark"] == expected_mark(cost)
        assert values[c.legal.index(s["best"])] == max(values)
        assert abs(s["trueCost"] - (max(c.true) - c.true[c.legal.index(c.played)])) < 1e-3
    line = browser.find_element(By.ID, "review-line")
    assert line.get_attribute("data-seat") == str(seat)
    assert abs(float(line.get_attribute("data-cost")) - total) < 0.01
    said = re.search(r"You gave away (\d+\.\d) GP", line.text)
    assert said and abs(float(said[1]) - total) <= 0.051, line.text

    # The curve: the evaluator (the workers' loop, run here) values each position of the finished deal on every
    # hand; the page draws it, the turning point marked.
    await evaluate_watched(pool)
    browser.refresh()
    with as_browser(browser, served.base) as her:
        curve = her.get(f"/tables/{table_id}/deals/1/evaluation").json()
    assert curve["basis"] == "open" and curve["finished"] and len(curve["points"]) == curve["positions"] > 4
    wait(browser, lambda d: (c := d.find_elements(By.ID, "eval-curve"))
         and c[0].get_attribute("data-points") == str(len(curve["points"]))
         and c[0].get_attribute("data-turning") == str(curve["turning"] or ""), timeout=30)
    review_url = f"{served.base}/play/review.html?table={table_id}&deal=1"
    in_four_looks(browser, review_url, "review", lambda d: d.find_elements(By.CSS_SELECTOR, "#choices")
                  and d.find_elements(By.CSS_SELECTOR, "#eval-curve circle"))

    # The replay of the deal: the bar and the curve, the position shown ringed.
    at = mine[len(mine) // 2].version
    in_four_looks(browser, f"{served.base}/watch/table.html?id={table_id}&at={at}", "review-replay-curve",
                  lambda d: d.find_elements(By.CSS_SELECTOR, "#eval-curve circle.now")
                  and d.find_elements(By.ID, "eval-bar"))

    # Her page: her accuracy by phase, the same choices counted.
    in_four_looks(browser, f"{served.base}/watch/player.html?id={me}", "review-player-accuracy",
                  lambda d: d.find_elements(By.CSS_SELECTOR, "#accuracy tr[data-phase]"))
    counted = browser.execute_script(
        "return [...document.querySelectorAll('#accuracy tr[data-phase]')].map(r => +r.dataset.decisions)")
    assert sum(counted) == len(mine)
    assert same_origin(requested_urls(browser), served.base) == []

    # Back at her table, the second deal played into its first tricks; a spectator follows it live: his bar is
    # made from the cards played (the table shows no hands while a deal is played), and she is shown none.
    browser.switch_to.window(table_window)
    play_until(browser, lambda d: d.execute_script(
        "const g = document.getElementById('game'); return !!g && +g.dataset.dealNo >= 2 && +g.dataset.tricks >= 2"),
        random.Random(6))
    live_no = browser.execute_script("return +document.getElementById('game').dataset.dealNo")
    with as_browser(browser, served.base) as her:
        assert her.get(f"/tables/{table_id}/deals/{live_no}/evaluation").json()["rule"] == "engine_help"
    spectator = more_browsers()
    sign_up(spectator, served.base, "saad", name="Saad")
    live_url = f"{served.base}/watch/table.html?id={table_id}"
    spectator.get(live_url)
    wait(spectator, lambda d: d.find_elements(By.ID, "eval-bar"))
    await evaluate_watched(pool)
    wait(spectator, lambda d: d.find_elements(By.CSS_SELECTOR, "#eval-bar[data-basis='public']"), timeout=30)
    in_four_looks(spectator, live_url, "review-live-bar", lambda d: d.find_elements(
        By.CSS_SELECTOR, "#eval-bar[data-basis='public']"))
