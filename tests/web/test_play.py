"""Playing in the browser (/play/): people sign up, meet in their lobbies, accept their invitations and play
by clicking what the page offers: the card game and the dice game, against each other and against bots.
Every card a page or any response it received shows is the player's own; a refused click is said in place;
a page whose server went away resumes where the game is. Screenshots in tests/web/screenshots/."""

from __future__ import annotations

import random

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.web.conftest import in_four_looks, requested_urls, same_origin, screenshot
from tests.web.people import as_browser, calm, click_offer, offered, read, shown, sign_up, steady, version_of, wait


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
    won = read(browser, "#game-end", "data-won")
    assert won in ("true", "false")
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
    assert read(browser, "#game-end", "data-won") == str(won).lower()
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



def test_bidding_a_trick_and_qayd_in_four_looks(served, browser):
    """Bidding, mid-trick and the Qayd dialog at her own table with three bots (recorded, so that Qayd is
    possible), in a browser of its own (see test_a_balut_turn_in_four_looks)."""
    served.start_workers()
    sign_up(browser, served.base, "noura", name="Noura")
    me = served_me(browser, served)
    table_id = my_table(browser, served.base, {"seats": [me, "bot", "bot", "bot"], "mode": "recorded",
                                               "bot_pace_seconds": 0, "turn_seconds": 900})
    url = f"{served.base}/play/table.html?id={table_id}"
    browser.get(url)
    rng = random.Random(3)
    bidding = lambda d: (version_of(d) is not None and d.find_elements(By.CSS_SELECTOR, "#choices .choice.bid:not([disabled])"))
    play_until(browser, lambda d: bool(bidding(d)) or d.find_elements(By.CSS_SELECTOR, "#trick .card"), rng)
    if bidding(browser):
        in_four_looks(browser, url, "play-bidding", bidding)
    # Mid-trick: a card or more of the trick being played on the table (not the trick just taken, which stays a
    # moment while it is gathered: #gather) and her turn to play.
    mid_trick = lambda d: (d.find_elements(By.CSS_SELECTOR, "#trick > .slot .card")
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



def test_a_balut_turn_in_four_looks(served, browser):
    """A Balut turn: thrown once, two dice kept, in a browser of its own: after the many page loads of the test
    above, one request of this browser waited 57 s (the server and the database idle meanwhile; not yet
    explained), while a fresh browser is answered at once."""
    served.start_workers()
    sign_up(browser, served.base, "noura", name="Noura")
    me = served_me(browser, served)
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


# ---- the table a player plays at (issue 46): cards that move, the last trick, the score sheets, seats said as
# people, the turn and its sound, refusals in the page's language, the game's end, a phone's one screen ----

# What the page does that a person sees or hears but a test cannot read from the page: every Web Animation
# started (its element and its first and last transforms) and every tone started, recorded by the browser itself
# before the page's scripts run.
WATCH_MOTION_AND_SOUND = """
  window.__moved = []; window.__tones = 0;
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (frames, options) {
    const gathered = !!this.closest('.gather');
    window.__moved.push({card: this.dataset.card ?? null, gathered, first: frames[0].transform ?? '',
                         last: frames[frames.length - 1].transform ?? ''});
    return animate.call(this, frames, options);
  };
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.__tones += 1; return start.apply(this, args); };
"""


def watch_motion_and_sound(driver) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH_MOTION_AND_SOUND})


def tricks_taken(driver) -> tuple[int, int]:
    """The deal the page shows and the tricks taken in it so far."""
    return tuple(driver.execute_script("const g = document.getElementById('game'); "
                                       "return g ? [Number(g.dataset.dealNo), Number(g.dataset.tricks)] : [0, 0]"))


def the_view(driver, base: str, table_id: str) -> dict:
    with as_browser(driver, base) as me:
        return me.get(f"/tables/{table_id}/view").json()


def at_a_table_with_three_bots(browser, served) -> tuple[str, str]:
    """Noura signs up and sits at a table of her own with three bots that play at once; its page is open."""
    sign_up(browser, served.base, "noura", name="Noura")
    table_id = my_table(browser, served.base, {"seats": [served_me(browser, served), "bot", "bot", "bot"],
                                               "bot_pace_seconds": 0})
    url = f"{served.base}/play/table.html?id={table_id}"
    browser.get(url)
    wait(browser, lambda d: version_of(d) is not None)
    return table_id, url


def test_cards_travel_to_the_trick_and_are_gathered_to_the_winner_and_the_last_trick_is_there(served, browser):
    served.start_workers()
    watch_motion_and_sound(browser)
    table_id, url = at_a_table_with_three_bots(browser, served)
    # The three bots are told apart, by where they sit: her partner, her right and her left opponents.
    names = {relation: (name, classes) for relation, name, classes in browser.execute_script(
        "return [...document.querySelectorAll('#board .seat')].map(s => "
        "[s.dataset.relation, s.querySelector('.who strong').textContent, s.className])")}
    assert names["partner"][0] == "Your partner (bot)" and "ours" in names["partner"][1]
    assert names["right"][0] == "Right opponent (bot)" and "theirs" in names["right"][1]
    assert names["left"][0] == "Left opponent (bot)" and "theirs" in names["left"][1]
    assert "Bot (normal)" not in browser.find_element(By.TAG_NAME, "body").text
    # Two tricks played: each card played travelled from its seat; each trick taken was gathered to its winner.
    rng = random.Random(5)
    play_until(browser, lambda d: tricks_taken(d)[1] >= 2, rng)
    moved = browser.execute_script("return window.__moved")
    travelled = [m for m in moved if m["first"].startswith("translate(") and m["last"] == "none"]
    gathered = [m for m in moved if m["gathered"] and m["last"].startswith("translate(")]
    view = the_view(browser, served.base, table_id)
    # The bots may have played the first trick's first cards before the page opened (it shows those where they
    # lie); every card of the second trick was played while she watched, since she played in the first.
    second_trick = {p["card"] for p in view["deal"]["tricks"][1]["cards"]}
    assert second_trick <= {m["card"] for m in travelled}, (second_trick, travelled)
    assert second_trick <= {m["card"] for m in gathered}, (second_trick, gathered)
    # The last trick on demand while the next is played: who played what, and who took it.
    wait(browser, lambda d: d.find_elements(By.ID, "last-trick-button"))
    steady(lambda: browser.find_element(By.ID, "last-trick-button").click())
    view = the_view(browser, served.base, table_id)
    last = view["deal"]["tricks"][-1]
    panel = wait(browser, lambda d: d.find_elements(By.ID, "last-trick"))[0]
    shown_cards = [li.find_element(By.CSS_SELECTOR, ".card").get_attribute("data-card")
                   for li in panel.find_elements(By.CSS_SELECTOR, "li")]
    assert shown_cards == [p["card"] for p in last["cards"]]
    winner_name = browser.find_element(By.CSS_SELECTOR, f"#board .seat[data-seat='{last['winner']}'] .who strong").text
    assert winner_name in browser.find_element(By.CSS_SELECTOR, "#last-trick .taken-by").text
    # The turn is marked where it is: when the table waits for her, her hand says so and only her seat is ringed.
    wait(browser, my_turn)
    assert browser.find_elements(By.ID, "your-turn")
    ringed = [e.get_attribute("data-seat") for e in browser.find_elements(By.CSS_SELECTOR, "#board .seat.turn")]
    assert ringed == [str(the_view(browser, served.base, table_id)["seat"])]

    # Cards on their way, in four looks (she plays when the table waits for her).
    def moving_now(d) -> bool:
        # A card on its way first (the bots' cards arrive with her own, her next turn with them), else she plays.
        if d.execute_script("return document.getAnimations().some(a => a.playState === 'running' "
                            "&& a.effect?.target?.closest?.('#trick'))"):
            return True
        offers = offered(d)
        if offers:
            click_offer(d, calm(offers, rng))
        return False
    in_four_looks(browser, url, "play-trick-moving", moving_now)

    # Asked for less motion, nothing moves: the next trick is played and gathered still.
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion",
                                                                         "value": "reduce"}]})
    browser.get(url)
    wait(browser, lambda d: version_of(d) is not None)
    at = tricks_taken(browser)
    play_until(browser, lambda d: tricks_taken(d) > at, rng)
    assert browser.execute_script("return window.__moved") == []


def test_the_turn_sound_is_off_until_she_turns_it_on_and_her_browser_remembers(served, browser):
    served.start_workers()
    watch_motion_and_sound(browser)
    table_id, url = at_a_table_with_three_bots(browser, served)
    rng = random.Random(8)
    sound = lambda d: d.find_element(By.ID, "sound").get_attribute("aria-pressed")
    assert steady(lambda: sound(browser)) == "false"
    for _ in range(3):                      # three of her turns go by in silence
        wait(browser, my_turn)
        before = version_of(browser)
        click_offer(browser, calm(offered(browser), rng))
        wait(browser, lambda d: (version_of(d) or 0) > (before or 0))
    assert browser.execute_script("return window.__tones") == 0
    steady(lambda: browser.find_element(By.ID, "sound").click())
    wait(browser, lambda d: sound(d) == "true")
    assert browser.execute_script("return window.__tones") == 1          # the tone that says it is on
    # Her next turn sounds.
    before = version_of(browser)
    wait(browser, my_turn)
    if (version_of(browser) or 0) == before:        # it was her turn already when she turned it on: she plays
        click_offer(browser, calm(offered(browser), rng))
        wait(browser, lambda d: (version_of(d) or 0) > before)
        wait(browser, my_turn)
    wait(browser, lambda d: d.execute_script("return window.__tones") >= 2)
    browser.get(url)
    wait(browser, lambda d: version_of(d) is not None)
    assert steady(lambda: sound(browser)) == "true"


READ_DEAL_SHEET = """
  const t = document.getElementById('deal-sheet'); if (!t) return null;
  const rows = {};
  for (const tr of t.querySelectorAll('tr[data-row]'))
    rows[tr.dataset.row] = [...tr.querySelectorAll('td')].map(td => Number(td.textContent));
  return {deal: Number(t.dataset.dealNo), rows};"""

READ_GAME_SHEET = """
  const t = document.getElementById('game-sheet'); if (!t) return null;
  return {deals: [...t.querySelectorAll('tbody tr')].map(tr => [Number(tr.dataset.dealNo),
            ...[...tr.querySelectorAll('td[data-team]')].map(td => Number(td.textContent))]),
          total: [...t.querySelectorAll('tfoot td[data-team]')].map(td => Number(td.textContent))};"""

# How much of a phone's screen the board, the choices, the hand and the buttons under it (last trick, sheet,
# sound) take together, top to bottom, while she plays a card into a trick (the page's height beyond it is the terms and the bidding, read when she wants).
ONE_SCREEN = """
  const top = document.getElementById('board').getBoundingClientRect().top;
  const bottom = Math.max(...[...document.querySelectorAll('#my-hand, #choices, #table-tools')]
                              .map(e => e.getBoundingClientRect().bottom));
  return [bottom - top, window.innerHeight];"""


def audited(client, table_id: str, deal_no: int) -> dict:
    """Deal ``deal_no``'s hand record (the table's export of it) as the independent auditor scores it."""
    record = client.get(f"/tables/{table_id}/deals/{deal_no}/record")
    assert record.status_code == 200, record.text
    report = client.post("/audit", json=record.json())
    assert report.status_code == 200, report.text
    body = report.json()
    return body.get("report", body)


def test_a_whole_game_opened_from_the_lobby_on_an_arabic_phone_and_its_sheets_are_the_records(served, browser):
    """Acceptance (issue 46): she signs up, turns the page to Arabic, opens a table with three bots from her lobby's
    form on a phone, plays the whole game by clicking what the page offers, and every figure of the score sheets
    is the hand records' as the auditor scores them."""
    served.start_workers()
    browser.set_window_size(390, 844)
    try:
        sign_up(browser, served.base, "noura", name="Noura")
        browser.find_element(By.ID, "lang").click()
        wait(browser, lambda d: d.execute_script("return document.documentElement.dir") == "rtl")
        for seat in (1, 2, 3):
            assert Select(browser.find_element(By.ID, f"seat-{seat}")).first_selected_option.get_attribute("value") == "bot"
        # The bots as fast as they play (the form's own choice; a second a move by default).
        steady(lambda: Select(browser.find_element(By.ID, "bot-pace")).select_by_value("0"))
        steady(lambda: browser.find_element(By.CSS_SELECTOR, "#new-table button[type=submit]").click())
        wait(browser, lambda d: "/play/table.html?id=" in d.current_url and version_of(d) is not None)
        table_id = browser.current_url.split("id=")[1].split("&")[0]
        assert browser.execute_script("return document.documentElement.dir") == "rtl"

        sheets, screens = {}, []

        def done(d) -> bool:
            seen = d.execute_script(READ_DEAL_SHEET)
            if seen and seen["deal"] not in sheets:
                sheets[seen["deal"]] = seen["rows"]
            if d.find_elements(By.CSS_SELECTOR, "#trick > .slot .card") and \
                    d.find_elements(By.CSS_SELECTOR, "#my-hand .hand-card.legal:not([disabled])"):
                screens.append(d.execute_script(ONE_SCREEN))
            return game_over(d)
        play_until(browser, done, random.Random(46), limit=5000)

        # During the tricks the board, her choices and her hand were on one phone screen, every time.
        assert screens and all(used <= height for used, height in screens), screens
        view = the_view(browser, served.base, table_id)
        assert read(browser, "#game-end", "data-reason") == view["end_reason"] == "target"
        # The end says who won, the final score, and why, in Arabic.
        text = read(browser, "#game-end")
        assert str(view["scores"][0]) in text and str(view["scores"][1]) in text and str(view["target"]) in text
        assert ("فزت" in text) == (view["winner"] == 0) and "seat" not in text.lower()
        wait(browser, lambda d: d.execute_script("return document.getElementById('live-state').className.split(' ')"
                                             ".pop()") == "ended")
        # The game's sheet: every deal, both sides' points, as the auditor scores each deal's hand record; the total.
        game_sheet = browser.execute_script(READ_GAME_SHEET)
        with as_browser(browser, served.base) as me:
            reports = [audited(me, table_id, n) for n in range(1, len(view["results"]) + 1)]
        assert [row[0] for row in game_sheet["deals"]] == list(range(1, len(reports) + 1))
        assert [row[1:] for row in game_sheet["deals"]] == [list(r["game_points"] or (0, 0)) for r in reports]
        assert game_sheet["total"] == [sum(r["game_points"][0] for r in reports if r["game_points"]),
                                       sum(r["game_points"][1] for r in reports if r["game_points"])]
        assert game_sheet["total"] == view["scores"]
        # Each deal's sheet she saw: its abnat and its points, as the auditor finds them (she sits in team 0).
        assert sheets, "no deal's sheet was shown"
        for n, rows in sheets.items():
            r = reports[n - 1]
            assert rows["abnat"] == list(r["card_points"]), (n, rows, r)
            assert rows["deal_total"] == list(r["game_points"]), (n, rows, r)
            if "baloot" in rows:
                assert rows["baloot"] == list(r["baloot"])
    finally:
        browser.set_window_size(1200, 900)

    # The finished table in four looks: the game's end, its sheets, and its last trick.
    url = f"{served.base}/play/table.html?id={table_id}"
    in_four_looks(browser, url, "play-game-end", lambda d: d.find_elements(By.ID, "end-reason"))

    def in_view(css: str):                 # the screenshot shows the part of the page it is about
        def ready(d) -> bool:
            return d.execute_script(f"const e = document.querySelector('{css}'); if (!e) return false; "
                                    "e.scrollIntoView({block: 'start'}); return true;")
        return ready
    in_four_looks(browser, url, "play-sheet", in_view("#deal-result"))

    def last_trick_open(d) -> bool:
        if not d.find_elements(By.ID, "last-trick-button"):
            return False
        if not d.find_elements(By.ID, "last-trick"):
            d.find_element(By.ID, "last-trick-button").click()
        return in_view("#last-trick")(d)
    in_four_looks(browser, url, "play-last-trick", last_trick_open)


def test_a_game_a_bot_played_for_her_says_so_and_a_refusal_is_said_in_arabic(served, browser):
    served.start_workers()
    sign_up(browser, served.base, "noura", name="Noura")
    table_id = my_table(browser, served.base, {"seats": [served_me(browser, served), "bot", "bot", "bot"],
                                               "bot_pace_seconds": 0, "turn_seconds": 5, "on_timeout": "bot"})
    url = f"{served.base}/play/table.html?id={table_id}&lang=ar"
    browser.get(url)
    wait(browser, lambda d: version_of(d) is not None)
    # She plays until she holds a card the rules do not let her play; the page does not offer it, and when it
    # is sent all the same the refusal is said in Arabic: her, the card led and the cards she holds, as cards.
    rng = random.Random(12)
    barred = "#my-hand.choosing .hand-card:not(.legal)"
    play_until(browser, lambda d: bool(d.find_elements(By.CSS_SELECTOR, barred)), rng)
    led = browser.execute_script("return document.querySelector('#trick > .slot[data-led] .card')?.dataset.card")
    browser.execute_script(f"const b = document.querySelector('{barred}'); b.disabled = false; b.click();")
    refusal = wait(browser, lambda d: d.find_elements(By.ID, "refusal"))[0]
    rule = refusal.get_attribute("data-rule")
    assert rule in ("revoke", "must_trump", "must_overtrump", "closed_trump_lead"), rule
    said_text = refusal.text
    assert "seat" not in said_text and "did not" not in said_text and "مقعد" not in said_text
    assert refusal.find_elements(By.CSS_SELECTOR, "bdi.card-list .card")
    if rule == "revoke":
        assert refusal.find_element(By.CSS_SELECTOR, "bdi.card-list .card").get_attribute("data-card") == led
    browser.set_window_size(390, 844)
    browser.execute_script("document.getElementById('refusal').scrollIntoView({block: 'center'})")
    screenshot(browser, "play-refusal-ar-phone")
    browser.set_window_size(1200, 900)
    # Then she stops playing: her clock runs out and a bot takes her seat to the game's end, which says so.
    wait(browser, game_over, timeout=240)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#game-end #bot-played"))
    headline, = shown(browser, "#game-end h2")           # read in one go: the page may draw it again
    assert "فزت!" not in headline and "آلي" in headline
    in_four_looks(browser, f"{served.base}/play/table.html?id={table_id}", "play-game-end-bot",
                  lambda d: d.find_elements(By.ID, "bot-played"))
