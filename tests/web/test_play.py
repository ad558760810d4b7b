"""Playing in the browser (/play/): people sign up, meet in their lobbies, accept their invitations and play
by clicking what the page offers: the card game and the dice game, against each other and against bots.
Every card a page or any response it received shows is the player's own; a refused click is said in place;
a page whose server went away resumes where the game is. Screenshots in tests/web/screenshots/."""

from __future__ import annotations

import random

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.web.conftest import in_four_looks, requested_urls, same_origin
from tests.web.people import as_browser, calm, click_offer, offered, shown, sign_up, steady, version_of, wait


def my_table(driver, base: str, body: dict) -> str:
    """A table opened by the signed-in browser (as its lobby form would, with the options a test needs)."""
    with as_browser(driver, base) as me:
        r = me.post("/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()["table_id"]


def play_until(driver, done, rng: random.Random, limit: int = 3000) -> int:
    """Click what the page offers (``calm``) whenever it offers something, until ``done(driver)``; each click is
    followed by the page's next version. Returns the clicks made."""
    clicks = 0
    for _ in range(limit):
        if done(driver):
            return clicks
        offers = wait(driver, lambda d: True if done(d) else offered(d))
        if offers is True:
            return clicks
        before = version_of(driver)
        click_offer(driver, calm(offers, rng))
        clicks += 1
        wait(driver, lambda d: done(d) or (version_of(d) or 0) > (before or 0)
             or d.find_elements(By.ID, "refusal"))
        assert not driver.find_elements(By.ID, "refusal"), driver.find_element(By.ID, "refusal").text
    raise AssertionError("the game did not get there")


def game_over(driver) -> bool:
    return bool(driver.find_elements(By.ID, "game-end"))


def test_one_person_and_three_hard_bots_play_a_game_to_its_end(served, browser):
    served.start_workers()
    sign_up(browser, served.base, "noura", name="Noura")
    table_id = my_table(browser, served.base, {"seats": [served_me(browser, served), "bot", "bot", "bot"],
                                               "bot_level": "hard", "bot_pace_seconds": 0})
    browser.get(f"{served.base}/play/table.html?id={table_id}")
    wait(browser, lambda d: version_of(d) is not None)
    clicks = play_until(browser, game_over, random.Random(7))
    assert clicks >= 20
    end = browser.find_element(By.ID, "game-end")
    assert end.get_attribute("data-won") in ("true", "false")
    with as_browser(browser, served.base) as me:
        view = me.get(f"/tables/{table_id}/view").json()
    assert view["phase"] == "ended" and max(view["scores"]) >= view["target"] or view["end_reason"]
    assert same_origin(requested_urls(browser), served.base) == []


def test_one_person_and_two_bots_play_a_balut_game_to_its_end(served, browser):
    served.start_workers()
    sign_up(browser, served.base, "noura", name="Noura")
    table_id = my_table(browser, served.base, {"seats": [served_me(browser, served), "bot", "bot"], "game": "balut",
                                               "bot_pace_seconds": 0})
    browser.get(f"{served.base}/play/table.html?id={table_id}")
    wait(browser, lambda d: version_of(d) is not None)
    clicks = play_until(browser, game_over, random.Random(9))
    with as_browser(browser, served.base) as me:
        view = me.get(f"/tables/{table_id}/view").json()
    mine = next(s for s in view["sheets"] if s["seat"] == view["seat"])
    assert view["phase"] == "ended" and mine["open"] == []           # she wrote every row of her sheet
    assert clicks >= 2 * len(mine["rows"])                           # a throw and a row at least, per turn
    won = view["seat"] in view["result"]["winners"]
    assert browser.find_element(By.ID, "game-end").get_attribute("data-won") == str(won).lower()
    # Her sheet on the page is the server's.
    total = browser.find_element(By.CSS_SELECTOR, "#my-sheet tfoot td").text
    assert total == str(mine["total"])


def served_me(driver, served) -> str:
    with as_browser(driver, served.base) as me:
        return me.get("/session").json()["user_id"]


def my_turn(driver) -> bool:
    return bool(offered(driver))


def test_the_play_pages_in_four_looks(served, browser, chromium_paths):
    served.start_workers()
    # Signed out: sign in, create an account, or claim one an organiser made.
    in_four_looks(browser, f"{served.base}/play/", "play-sign-in",
                  lambda d: d.find_elements(By.ID, "sign-in") and d.find_elements(By.ID, "claim"))
    sign_up(browser, served.base, "noura", name="Noura")
    me = served_me(browser, served)
    # A friend invites her to a table, with terms to read before she accepts.
    friend, headers = served.user("Saad")
    r = served.http.post("/tables", headers=headers, json={
        "seats": [friend, me, "bot", "bot"], "hands_policy": "never", "turn_seconds": 30, "on_timeout": "bot",
        "mode": "recorded", "bot_level": "hard"})
    assert r.status_code == 201, r.text
    in_four_looks(browser, f"{served.base}/play/", "play-lobby", lambda d: d.find_elements(By.CSS_SELECTOR,
                                                                                           ".invitation"))
    terms = browser.find_element(By.CSS_SELECTOR, ".invitation dl.terms").text
    assert "30" in terms and "Saad" in browser.find_element(By.CSS_SELECTOR, ".invitation h3").text
    # A table proposed by someone who does not sit at it: its terms say he referees it and sees every hand.
    _, hakam = served.user("Hakam")
    r = served.http.post("/tables", headers=hakam, json={"seats": [me, "bot", "bot", "bot"]})
    assert r.status_code == 201, r.text
    refereed = f".invitation[data-table='{r.json()['table_id']}'] [data-term=referee]"
    names = in_four_looks(browser, f"{served.base}/play/", "play-lobby-referee",
                          lambda d: d.find_elements(By.CSS_SELECTOR, refereed),
                          lambda d: d.find_element(By.CSS_SELECTOR, refereed).text)
    assert "Hakam" in names["en"] and "every hand" in names["en"] and "Hakam" in names["ar"]
    # She accepts it in her lobby and goes to the table from there: its terms name its referee there too.
    hakam_table = r.json()["table_id"]
    browser.find_element(By.CSS_SELECTOR, f".invitation[data-table='{hakam_table}'] button.accept").click()
    to_table = f"a[href='/play/table.html?id={hakam_table}']"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, to_table))
    browser.find_element(By.CSS_SELECTOR, to_table).click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "details.terms-box [data-term=referee]"))

    def terms_open(d) -> bool:                      # the page keeps its terms folded: opened to be seen
        return d.execute_script("const box = document.querySelector('details.terms-box'); if (!box) return false;"
                                " box.open = true; return !!box.querySelector('[data-term=referee]')")

    names = in_four_looks(browser, browser.current_url, "play-table-referee", terms_open,
                          lambda d: d.find_element(By.CSS_SELECTOR, "details.terms-box [data-term=referee]").text)
    assert "Hakam" in names["en"] and "Hakam" in names["ar"]

    # Bidding at her own table with three bots (recorded, so that Qayd is possible).
    table_id = my_table(browser, served.base, {"seats": [me, "bot", "bot", "bot"], "mode": "recorded",
                                               "bot_pace_seconds": 0, "turn_seconds": 900})
    url = f"{served.base}/play/table.html?id={table_id}"
    browser.get(url)
    rng = random.Random(3)
    bidding = lambda d: (version_of(d) is not None and d.find_elements(By.CSS_SELECTOR, "#choices .choice.bid:not([disabled])"))
    play_until(browser, lambda d: bool(bidding(d)) or d.find_elements(By.CSS_SELECTOR, "#trick .card"), rng)
    if bidding(browser):
        in_four_looks(browser, url, "play-bidding", bidding)
    # Mid-trick: a card or more on the table and her turn to play.
    mid_trick = lambda d: (d.find_elements(By.CSS_SELECTOR, "#trick .card")
                           and d.find_elements(By.CSS_SELECTOR, "#my-hand .hand-card.legal:not([disabled])"))
    play_until(browser, mid_trick, rng)
    in_four_looks(browser, url, "play-trick", mid_trick)

    def qayd_open(d) -> bool:
        if not mid_trick(d):
            return False
        if not d.find_elements(By.CSS_SELECTOR, "#qayd-dialog[open]"):
            d.find_element(By.ID, "qayd-open").click()
        return bool(d.find_elements(By.CSS_SELECTOR, "#qayd-dialog[open]"))
    in_four_looks(browser, url, "play-qayd", qayd_open)

    # A Balut turn: thrown once, two dice kept.
    balut = my_table(browser, served.base, {"seats": [me, "bot", "bot"], "game": "balut", "bot_pace_seconds": 0})
    url = f"{served.base}/play/table.html?id={balut}"
    browser.get(url)
    wait(browser, lambda d: d.find_elements(By.ID, "throw"))
    browser.find_element(By.ID, "throw").click()
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".die-button:not([disabled])"))

    def two_kept(d) -> bool:
        if len(d.find_elements(By.CSS_SELECTOR, ".die-button:not([disabled])")) == 5 \
                and not d.find_elements(By.CSS_SELECTOR, ".die-button.kept"):
            for k in (0, 1):
                steady(lambda: d.find_element(By.CSS_SELECTOR, f".die-button[data-die-index='{k}']").click())
        return len(d.find_elements(By.CSS_SELECTOR, ".die-button.kept[aria-pressed='true']")) == 2
    in_four_looks(browser, url, "play-balut", two_kept)


LOGINS = ("ahmad", "badr", "saad", "fahad")     # seats 0-3: Ahmad and Saad against Badr and Fahad


def choose_in_lobby(driver, seat: int, login: str | None) -> None:
    Select(driver.find_element(By.ID, f"seat-{seat}")).select_by_value("person" if login else "bot")
    if login:
        box = driver.find_element(By.ID, f"login-{seat}")
        box.clear()
        box.send_keys(login)


def test_four_people_meet_in_their_lobbies_and_play_a_deal_by_clicking(served, browser, more_browsers):
    drivers = [browser] + [more_browsers() for _ in range(3)]
    for driver, login in zip(drivers, LOGINS):
        sign_up(driver, served.base, login, name=login.title())
    # Ahmad opens the table in his lobby: Badr on his right, Saad his partner, Fahad on his left; a 60 s clock.
    ahmad = drivers[0]
    for seat, login in enumerate(LOGINS[1:], start=1):
        choose_in_lobby(ahmad, seat, login)
    Select(ahmad.find_element(By.ID, "clock")).select_by_value("60")
    ahmad.find_element(By.CSS_SELECTOR, "#new-table button[type=submit]").click()
    proposed, = shown(ahmad, "#notice-new-table")
    assert "Badr" in proposed and "Saad" in proposed and "Fahad" in proposed
    # Each of the others finds the invitation in his lobby, reads its terms, accepts.
    table_id = None
    for driver in drivers[1:]:
        driver.get(f"{served.base}/play/")
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".invitation[data-table]"))

        def read_and_accept(d=driver):
            invitation = d.find_element(By.CSS_SELECTOR, ".invitation[data-table]")
            assert "60 s" in invitation.find_element(By.CSS_SELECTOR, "dl.terms").text
            assert "Ahmad" in invitation.find_element(By.CSS_SELECTOR, "h3").text
            table = invitation.get_attribute("data-table")
            invitation.find_element(By.CSS_SELECTOR, "button.accept").click()
            return table
        table_id = steady(read_and_accept)
        wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, f".invitation[data-table='{table_id}']"))
    for driver in drivers:
        driver.get(f"{served.base}/play/table.html?id={table_id}")
        wait(driver, lambda d: version_of(d) is not None)

    # They play the first deal by clicking, each at his own page when it offers him something.
    rng, clicks = random.Random(11), []
    def deal_two(d) -> bool:
        return d.execute_script("return Number(document.getElementById('game')?.dataset.dealNo ?? 0)") >= 2
    for _ in range(200):
        if deal_two(ahmad):
            break
        seat, offers = wait(ahmad, lambda _: next(((s, o) for s, d in enumerate(drivers) if (o := offered(d))), None)
                            or (deal_two(ahmad) and (None, None)))
        if seat is None:
            break
        driver, offer = drivers[seat], calm(offers, rng)
        before = version_of(driver)
        click_offer(driver, offer)
        clicks.append((seat, offer))
        wait(driver, lambda d: (version_of(d) or 0) > before or d.find_elements(By.ID, "refusal"))
        assert not driver.find_elements(By.ID, "refusal")
    assert deal_two(ahmad), "the first deal did not end"
    # The deal's record (the log) is exactly the clicks, and its audit finds it valid.
    with as_browser(ahmad, served.base) as api:
        record = api.get(f"/tables/{table_id}/deals/1/record").json()
        audit = api.get(f"/tables/{table_id}/deals/1/audit").json()
    logged = [(a["seat"], ("play", a["play"]) if "play" in a else ("bid", a["bid"], a.get("suit"))
               if "bid" in a else ("double", a["double"])) for a in record["actions"]]
    clicked = [(seat, ("play", o["card"]) if o["kind"] == "card" else (o["action"], o["value"], o["suit"] or None)
                if o["action"] == "bid" else (o["action"], o["value"])) for seat, o in clicks]
    assert logged == clicked
    assert audit["chain_intact"] and audit["report"]["valid"] and audit["report"]["violations"] == []
    # Each page showed the deal's result while the next deal is bid.
    assert all(d.find_elements(By.CSS_SELECTOR, "#deal-result[data-deal-no='1']") for d in drivers
               if d.execute_script("return document.getElementById('game')?.dataset.phase") == "bidding")
