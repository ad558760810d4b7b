"""A championship's page in a real browser: the bracket drawn a section at a time (SVG), zooming between rounds
without losing the place, a team found by its id or a player's name and its path, the score on each card, the
standings of a knock-out; and a 10,240-team championship, whose first paint and team search are timed (printed,
not asserted) with every response the page received kept under a stated size."""

from __future__ import annotations

import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from services.eventstore.subscriptions import rebuild_projection
from services.workers.projections import standings_read_model
from tests.stored_championship import knock_out, path_in, player_name, team_name
from tests.web.conftest import in_four_looks, requested_urls, same_origin, screenshot
from tests.web.people import wait


LARGEST_RESPONSE = 64 * 1024       # what the page of a 10,240-team championship may fetch at once


def boxes(driver) -> list[str]:
    """The match ids drawn (in the order drawn: column by column)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#bracket g.match[data-match]')].map(g => g.dataset.match)")


def drawn_round(driver) -> str | None:
    """The round of the section drawn (read in one go: the page redraws the drawing as it goes)."""
    return driver.execute_script("return document.getElementById('bracket')?.dataset.round ?? null")


def label(driver) -> str | None:
    return driver.execute_script("return document.getElementById('section-label')?.textContent ?? null")


def names_in(card) -> list[str]:
    """The teams' full names on a card (a name too long for its box is cut, its tooltip whole)."""
    return [e.get_attribute("textContent") for e in card.find_elements(By.CSS_SELECTOR, "text.team title")]


def search(driver, text: str) -> None:
    box = driver.find_element(By.ID, "team")
    box.clear()
    box.send_keys(text)
    driver.find_element(By.CSS_SELECTOR, "form.search button").click()


async def test_a_1024_team_bracket_is_drawn_by_sections_and_a_team_search_finds_its_path(served, browser, pool):
    cid, sim = await knock_out(pool, 1024)
    rounds = [r.matches for r in sim.state.rounds]
    browser.get(f"{served.base}/watch/")
    wait(browser, lambda d: d.find_elements(By.LINK_TEXT, "Riyadh Cup 1024"))[0].click()
    # The first section: round 1's first eight matches and, over three more columns, where their winners went.
    wait(browser, lambda d: len(boxes(d)) == 15)
    assert boxes(browser) == [m.match_id for c in range(4) for m in rounds[c][:8 >> c]]
    assert [b.text for b in browser.find_elements(By.CSS_SELECTOR, ".rounds button")][-3:] == [
        "Quarter-finals", "Semi-finals", "Final"]
    assert label(browser) == "matches 1–8 of 512"
    # Each card names its teams by their players and shows its score; the winner is the bold one.
    first = rounds[0][0]
    outcome = sim.state.rounds[0].outcomes[0]
    card = browser.find_element(By.CSS_SELECTOR, f"#bracket g.match[data-match='{first.match_id}']")
    assert names_in(card) == [team_name(sim, first.team_a), team_name(sim, first.team_b)]
    shown = [e.text.strip("\u2068\u2069") for e in card.find_elements(By.CSS_SELECTOR, "text.team")]   # isolated names
    assert all(full.startswith(part.rstrip("…")) for part, full in zip(shown, names_in(card))) and shown[0]
    assert card.find_element(By.CSS_SELECTOR, "text.team.winner title").get_attribute("textContent") == (
        team_name(sim, outcome.winner))
    assert card.get_attribute("data-score") == f"{outcome.result.team_a_points} – {outcome.result.team_b_points}"

    # Zoom: section 3 of round 1 (matches 17-24), then round 2 shows the section their winners are in (9-16).
    browser.find_element(By.ID, "later").click()
    wait(browser, lambda d: label(d) == "matches 9–16 of 512")
    browser.find_element(By.ID, "later").click()
    wait(browser, lambda d: boxes(d)[:8] == [m.match_id for m in rounds[0][16:24]])
    browser.find_element(By.CSS_SELECTOR, ".rounds button[data-round='2']").click()
    wait(browser, lambda d: drawn_round(d) == "2")
    assert boxes(browser)[:8] == [m.match_id for m in rounds[1][8:16]]
    assert rounds[1][8].match_id in boxes(browser) and label(browser) == (
        "matches 9–16 of 256")

    # A team knocked out in round 3, found by its id in lower case: its path, and the section where it lost.
    team = next(t for t in sim.state.team_order if len(path_in(sim, t)) == 3)
    search(browser, team.lower())
    wait(browser, lambda d: [e.get_attribute("data-match") for e in d.find_elements(By.CSS_SELECTOR, "#path li")]
         == path_in(sim, team))
    wait(browser, lambda d: drawn_round(d) == "3")
    selected = browser.find_element(By.CSS_SELECTOR, "#bracket g.match.selected")
    assert selected.get_attribute("data-match") == path_in(sim, team)[-1]
    assert selected.find_element(By.CSS_SELECTOR, "text.team.found title").get_attribute("textContent") == (
        team_name(sim, team))
    assert selected.find_element(By.CSS_SELECTOR, "text.team.winner title").get_attribute("textContent") != (
        team_name(sim, team))
    assert browser.find_element(By.CSS_SELECTOR, "#path li:last-child").text.endswith("lost")
    screenshot(browser, "bracket-1024")

    # Found by a player's name: "Player 1" is in several teams' names, so the page asks which; one is chosen.
    search(browser, "player 100")
    choices = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#found button"))
    assert [c.text for c in choices] == [team_name(sim, t) for t in sim.state.team_order
                                         if "player 100" in team_name(sim, t).lower()][:10]
    wanted = choices[0].text
    choices[0].click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#path h3")
         and d.find_element(By.CSS_SELECTOR, "#path h3").text.endswith(wanted))

    # The champion's path runs through all ten rounds, to the final, from a link that names the team.
    browser.get(f"{served.base}/watch/championship.html?id={cid}&team={sim.state.champion}")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#path li")) == 10)
    final = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#bracket g.match[data-match='{rounds[-1][0].match_id}']"))[0]
    assert final.find_element(By.CSS_SELECTOR, "text.team.winner title").get_attribute("textContent") == (
        team_name(sim, sim.state.champion))
    result = sim.state.rounds[-1].outcomes[0].result
    assert final.get_attribute("data-score") == f"{result.team_a_points} – {result.team_b_points}"
    # The match's panel: its teams and that it had no table (a simulated result).
    final.click()
    wait(browser, lambda d: "No table was played" in d.find_element(By.ID, "match-panel").text)
    # Nobody by that name: said so, nothing highlighted.
    search(browser, "T9999")
    wait(browser, lambda d: d.find_element(By.ID, "path").text == "No team with that name.")
    assert browser.find_elements(By.CSS_SELECTOR, "text.team.found") == []
    assert same_origin(requested_urls(browser), served.base) == []

    # The standings of a knock-out: no Buchholz (a Swiss tie-break), and the two beaten semi-finalists share third.
    await rebuild_projection(pool, standings_read_model())
    browser.get(f"{served.base}/watch/championship.html?id={cid}&tab=standings")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#standings tbody tr")) == 100)
    columns = [e.get_attribute("data-col") for e in browser.find_elements(By.CSS_SELECTOR, "#standings th")]
    assert "buchholz" not in columns and columns[:2] == ["rank", "team"]
    semis = sim.state.rounds[-2]
    beaten = {m.team_a if o.winner == m.team_b else m.team_b for m, o in zip(semis.matches, semis.outcomes)}
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings tbody tr")[:4]
    ranks = {tr.get_attribute("data-team"): tr.find_element(By.CSS_SELECTOR, "td").text for tr in rows}
    assert ranks[sim.state.champion] == "1" and {ranks[t] for t in beaten} == {"3="}
    assert rows[0].find_elements(By.CSS_SELECTOR, "td")[1].text == team_name(sim, sim.state.champion)
    browser.find_element(By.ID, "more").click()
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#standings tbody tr")) == 200)

    # In English and Arabic, desktop and phone: drawn in its direction (the first round on the right in Arabic).
    seen = in_four_looks(browser, f"{served.base}/watch/championship.html?id={cid}", "championship",
                         lambda d: len(boxes(d)) >= 3,
                         lambda d: d.execute_script(
                             "const g = [...document.querySelectorAll('#bracket g.match')];"
                             "return [g[0].getBoundingClientRect().left, g[g.length - 1].getBoundingClientRect().left,"
                             " document.querySelector('.rounds button:last-child').textContent]"))
    assert seen["en"][0] < seen["en"][1] and seen["ar"][0] > seen["ar"][1]
    assert seen["ar"][2] == "النهائي"


async def test_a_10240_team_bracket_paints_and_finds_a_team_with_small_requests(served, browser, pool):
    started = time.perf_counter()
    cid, sim = await knock_out(pool, 10_240)
    stored = time.perf_counter() - started
    served.recorder.responses.clear()
    browser.get(f"{served.base}/watch/championship.html?id={cid}")
    wait(browser, lambda d: len(boxes(d)) == 15)
    paint = browser.execute_script("return performance.now()")
    timings = browser.execute_script("return performance.getEntriesByType('resource').filter(e => "
                                     "!e.name.includes('/watch/')).map(e => [e.name.split('?')[0].split('/').pop(), "
                                     "Math.round(e.responseEnd - e.startTime)])")
    # 16,384 slots: 8,192 first-round matches, 14 rounds; the first eight matches drawn with where they lead.
    assert label(browser) == "matches 1–8 of 8192"
    assert len(browser.find_elements(By.CSS_SELECTOR, ".rounds button")) == 14
    # Again, as every viewer after the first finds it: the server holds the championship folded.
    browser.get(f"{served.base}/watch/championship.html?id={cid}&lang=ar")
    wait(browser, lambda d: len(boxes(d)) == 15)
    warm = browser.execute_script("return performance.now()")
    assert label(browser) == "المباريات 1–8 من 8192"
    team = sim.state.team_order[7_777]
    clicked = time.perf_counter()
    search(browser, player_name(sim.state.teams[team].players[1]))
    wait(browser, lambda d: [e.get_attribute("data-match") for e in d.find_elements(By.CSS_SELECTOR, "#path li")]
         == path_in(sim, team))
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#bracket g.match.selected"))
    found = time.perf_counter() - clicked
    assert browser.find_element(By.CSS_SELECTOR, "#bracket g.match.selected").get_attribute("data-match") == (
        path_in(sim, team)[-1])
    sizes = sorted(((len(body), path) for path, body in served.recorder.api_bodies()), reverse=True)
    print(f"\n10,240 teams: stored in {stored:.1f} s; first paint {paint:.0f} ms after navigation (the "
          f"server folding its 20,498 events on this first read), {warm:.0f} ms for the next viewer; "
          f"a team found by a player's name in {found * 1000:.0f} ms; {len(sizes)} API responses, the largest "
          f"{sizes[0][0]:,} bytes ({sizes[0][1]}); the first paint's requests (ms): {timings}")
    assert sizes[0][0] <= LARGEST_RESPONSE, sizes[:3]
    screenshot(browser, "bracket-10240")


async def test_a_double_elimination_draws_each_bracket_as_a_stage(served, browser, pool):
    cid, sim = await knock_out(pool, 16, "double_elimination")
    browser.get(f"{served.base}/watch/championship.html?id={cid}")
    wait(browser, lambda d: len(boxes(d)) >= 7)
    stages = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "#stage option")]
    assert stages[:2] == ["winners", "losers"] and "grand final" in stages
    winners_first = [m.match_id for m in sim.state.rounds[0].matches if m.stage == "winners"]
    assert boxes(browser)[:8] == winners_first[:8]
    # The losers' bracket: its first round's matches and the ones their winners were paired into.
    Select(browser.find_element(By.ID, "stage")).select_by_value("losers")
    losers = [(r.number, [m.match_id for m in r.matches if m.stage == "losers"]) for r in sim.state.rounds]
    first_round, first_matches = next((n, ms) for n, ms in losers if ms)
    wait(browser, lambda d: drawn_round(d) == str(first_round))
    assert boxes(browser)[:len(first_matches)] == first_matches[:8]
    assert browser.find_element(By.CSS_SELECTOR, "#stage option:checked").text == "losers' bracket"
    # The grand final: one match, its winner the champion.
    Select(browser.find_element(By.ID, "stage")).select_by_value("grand final")
    wait(browser, lambda d: len(boxes(d)) == 1)
    final = browser.find_element(By.CSS_SELECTOR, "#bracket g.match")
    assert final.find_element(By.CSS_SELECTOR, "text.team.winner title").get_attribute("textContent") == (
        team_name(sim, sim.state.champion))
    in_four_looks(browser, browser.current_url, "double-elimination", lambda d: len(boxes(d)) == 1)
