"""The lobby (/play/) and what every page shares, in a real browser, reached as a person does: the new-table form
offers each game's own levels and modes (GET /games) and opens a Balut table and a table that records illegal
actions (for Qayd); a refused sign-up keeps what was typed; a championship card names teams; a finished table
says so; a language asked for once is kept; every page where one is signed in signs out. The acceptance test
plays a whole Balut game opened from the lobby on an Arabic phone and checks the page's score sheet against the
game's record. Screenshots in tests/web/screenshots/."""

from __future__ import annotations

import random
import re

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.web.conftest import PHONE, in_four_looks, requested_urls, same_origin, screenshot
from tests.web.people import PASSWORD, as_browser, offered, read, shown, sign_up, steady, type_into, version_of, wait
from tests.web.test_play import play_until, served_me

LATIN = re.compile(r"[A-Za-z]")
ROWS = ("fours", "fives", "sixes", "straight", "house", "choice", "balut")


def options(driver, select_id: str) -> list[str]:
    return driver.execute_script(
        f"return [...document.querySelectorAll('#{select_id} option')].map(o => o.value)")


def choose(driver, select_id: str, value: str) -> None:
    """Pick ``value`` in the form's list (the form redraws itself: the list is found afresh)."""
    steady(lambda: Select(driver.find_element(By.ID, select_id)).select_by_value(value))
    wait(driver, lambda d: d.find_element(By.ID, select_id).get_attribute("value") == value)


def new_table_form(driver) -> str:
    """The lobby's new-table form once drawn: the game it is set to."""
    return wait(driver, lambda d: (f := d.find_elements(By.ID, "new-table")) and f[0].get_attribute("data-game"))


def account(served, login: str, name: str) -> str:
    """A person with a login (signed up over HTTP, in a client of his own): his user id."""
    import httpx
    with httpx.Client(base_url=served.base, timeout=30) as c:
        c.get("/health")
        r = c.post("/accounts", json={"login": login, "password": PASSWORD, "name": name},
                   headers={"X-CSRF-Token": c.cookies.get("baloot_csrf", "")})
        assert r.status_code == 201, r.text
        return r.json()["user_id"]


def lobby_of(served, login: str) -> dict:
    """What ``login``'s lobby holds (GET /me/lobby, signed in over HTTP in a client of his own)."""
    import httpx
    with httpx.Client(base_url=served.base, timeout=30) as c:
        c.get("/health")
        csrf = {"X-CSRF-Token": c.cookies.get("baloot_csrf", "")}
        assert c.post("/session", json={"login": login, "password": PASSWORD}, headers=csrf).status_code == 200
        return c.get("/me/lobby").json()


# ---- 1. each game's own levels; a Balut table from the form, with or without bots ----

def test_the_form_offers_each_games_own_levels_and_opens_a_balut_table_with_a_friend_and_no_bot(served, browser):
    saad = account(served, "saad", "Saad")
    sign_up(browser, served.base, "noura", name="Noura")
    assert new_table_form(browser) == "baloot"
    assert options(browser, "game") == ["baloot", "balut"]
    assert options(browser, "bot-level") == ["easy", "normal", "hard", "expert"]
    choose(browser, "game", "balut")
    assert new_table_form(browser) == "balut"
    assert options(browser, "bot-level") == ["simple", "strong"]       # the server's own (GET /games)
    assert options(browser, "profile") == ["stc", "ibf"]
    assert options(browser, "timeout") == ["auto_play", "bot"]
    assert browser.find_elements(By.ID, "hands") == [] and browser.find_elements(By.ID, "table-mode") == []
    # Two players: a friend and me; no bot sits, so no bots' level is asked (nor sent).
    choose(browser, "players", "2")
    choose(browser, "seat-1", "person")
    assert browser.find_elements(By.ID, "bot-level") == []
    type_into(browser, "login-1", "saad")
    browser.find_element(By.CSS_SELECTOR, "#new-table button[type=submit]").click()
    proposed, = shown(browser, "#notice-new-table")
    assert "Saad" in proposed and browser.find_elements(By.CSS_SELECTOR, "#notice-new-table.ok")
    assert new_table_form(browser) == "balut"                         # the form stays on the game chosen
    me = served_me(browser, served)
    invited, = lobby_of(served, "saad")["invitations"]                 # Saad is invited to a two-seat Balut table
    assert (invited["game"], invited["seats"], invited["my_seat"]) == ("balut", [me, saad], 1)

    # The form in four looks, on each game (a link may open it on one: ?game=).
    for game in ("baloot", "balut"):
        in_four_looks(browser, f"{served.base}/play/?game={game}", f"lobby-new-table-{game}",
                      lambda d, game=game: new_table_form(d) == game and d.execute_script(
                          "document.getElementById('new-table').scrollIntoView(); return true"))


def test_a_balut_table_with_a_friend_reaches_his_lobby_as_a_balut_invitation(served, browser):
    saad = account(served, "saad", "Saad")
    sign_up(browser, served.base, "noura", name="Noura")
    new_table_form(browser)
    choose(browser, "game", "balut")
    choose(browser, "players", "3")
    choose(browser, "seat-1", "person")
    type_into(browser, "login-1", "nobody")
    choose(browser, "bot-level", "simple")
    # A refusal (no such login) keeps every choice: the game, the players, the seats, the level.
    browser.find_element(By.CSS_SELECTOR, "#new-table button[type=submit]").click()
    refused, = shown(browser, "#notice-new-table.error")
    assert "No account has that login" in refused
    assert new_table_form(browser) == "balut"
    assert [browser.find_element(By.ID, i).get_attribute("value") for i in ("players", "seat-1", "login-1", "bot-level")] \
        == ["3", "person", "nobody", "simple"]
    type_into(browser, "login-1", "saad")
    browser.find_element(By.CSS_SELECTOR, "#new-table button[type=submit]").click()
    shown(browser, "#notice-new-table.ok")
    me = served_me(browser, served)
    invited, = lobby_of(served, "saad")["invitations"]
    assert (invited["game"], invited["seats"]) == ("balut", [me, saad, "bot-simple"])
    assert invited["terms"]["bots"] == [None, None, "simple"]


# ---- the acceptance: a whole Balut game opened from the lobby, on an Arabic phone ----

def page_sheet(driver) -> dict:
    """The score sheet the page shows, read in one go: per row the cells' figures by seat, the totals, the final
    points, the standings, the column names."""
    return driver.execute_script("""
      const cells = {};
      for (const tr of document.querySelectorAll("#sheets tbody tr[data-row]"))
        cells[tr.dataset.row] = [...tr.querySelectorAll("td")].map(td => td.innerText.trim());
      return {cells,
              totals: [...document.querySelectorAll("#sheets [data-total]")].map(e => e.innerText.trim()),
              points: [...document.querySelectorAll("#sheets [data-points]")].map(e => e.innerText.trim()),
              heads: [...document.querySelectorAll("#sheets thead th")].map(e => e.innerText.trim()),
              mine: document.querySelector("#my-sheet tfoot td")?.innerText.trim(),
              standings: [...document.querySelectorAll("#standings li")].map(li => ({
                seat: Number(li.dataset.seat), place: Number(li.dataset.place), text: li.innerText.trim()})),
              end: document.getElementById("balut-end")?.innerText ?? "",
              state: document.getElementById("live-state")?.innerText ?? ""};""")


def round_of(driver) -> int:
    text = driver.execute_script("return document.getElementById('balut-round')?.innerText ?? ''")
    return int(text) if text.strip().isdigit() else 0


def test_a_whole_balut_game_opened_from_the_lobby_on_an_arabic_phone_matches_its_record(served, browser):
    served.start_workers()
    browser.set_window_size(*PHONE)
    browser.get(f"{served.base}/play/?lang=ar")
    sign_up(browser, served.base, "noura", name="Noura")
    assert browser.execute_script("return document.documentElement.dir") == "rtl"       # ?lang=ar was kept
    # She opens a Balut table with two bots by its form: the dice game, three players, strong bots, no clock.
    new_table_form(browser)
    choose(browser, "game", "balut")
    choose(browser, "players", "3")
    assert options(browser, "bot-level") == ["simple", "strong"]
    choose(browser, "bot-level", "strong")
    assert options(browser, "bot-pace") == ["1", "0.5", "0"]
    choose(browser, "bot-pace", "0")
    choose(browser, "clock", "0")
    browser.find_element(By.CSS_SELECTOR, "#new-table button[type=submit]").click()
    wait(browser, lambda d: "/play/table.html" in d.current_url and d.find_elements(By.ID, "play-balut"))
    table_id = browser.current_url.split("id=")[1].split("&")[0]
    with as_browser(browser, served.base) as me:       # the pace she chose is the table's term
        assert me.get(f"/tables/{table_id}/view").json()["terms"]["bot_pace_seconds"] == 0
    table_url = f"{served.base}/play/table.html?id={table_id}"

    # Mid-game (her turn in round 4), in four looks; then on, on the Arabic phone.
    play_until(browser, lambda d: round_of(d) >= 4 and bool(offered(d)), random.Random(11))
    in_four_looks(browser, table_url, "lobby-balut-mid", lambda d: d.find_elements(By.ID, "my-turn"))
    browser.set_window_size(*PHONE)
    assert browser.execute_script("return document.documentElement.dir") == "rtl"
    play_until(browser, lambda d: bool(d.find_elements(By.ID, "balut-end")), random.Random(12))
    seen = wait(browser, lambda d: (s := page_sheet(d)) and s["standings"] and s)

    with as_browser(browser, served.base) as me:
        r = me.get(f"/tables/{table_id}/record")
        view = me.get(f"/tables/{table_id}/view").json()
    assert r.status_code == 200, r.text
    record = r.json()
    assert record["format"] == "balut-game/1" and record["players"] == 3
    # Every row's figures and every total, as the record's turns have them (summed here, not by the page).
    written = {row: [[] for _ in range(3)] for row in ROWS}
    for turn in record["turns"]:
        written[turn["category"]][turn["seat"]].append(turn["points"])
    assert len(record["turns"]) == 3 * len(ROWS)
    for row in ROWS:
        assert seen["cells"][row] == [" + ".join(map(str, w)) for w in written[row]], row
    totals = [sum(sum(w[seat]) for w in written.values()) for seat in range(3)]
    assert seen["totals"] == [str(x) for x in totals]
    assert seen["points"] == [str(x) for x in totals]                   # STC: the final points are the totals
    assert seen["mine"] == str(totals[view["seat"]])
    # Who won and how: the standings in order of place, the winner's points in the headline, in Arabic.
    best = max(totals)
    assert [s["place"] for s in seen["standings"]] == sorted(s["place"] for s in seen["standings"])
    assert str(best) in seen["end"].splitlines()[0]
    for s in seen["standings"]:
        assert str(totals[s["seat"]]) in s["text"]
    assert not LATIN.search(seen["end"]), seen["end"]
    # Names, not seat numbers: three different column names, none a seat number, no English.
    assert len(set(seen["heads"][1:])) == 3 and not any("المقعد" in h for h in seen["heads"])
    assert not any(LATIN.search(h) for h in seen["heads"]), seen["heads"]
    assert seen["state"] == "انتهت الصكة"                             # over, not "live"
    game_end = read(browser, "#game-end", "data-won")
    assert game_end == str(view["seat"] in view["result"]["winners"]).lower()
    assert same_origin(requested_urls(browser), served.base) == []
    browser.execute_script("document.getElementById('sheets').scrollIntoView()")
    screenshot(browser, "lobby-balut-end-sheets-ar-phone")             # every player's sheet, on the phone
    in_four_looks(browser, table_url, "lobby-balut-end", lambda d: d.find_elements(By.ID, "balut-end"))


# ---- 4. a refused sign-up keeps what was typed ----

def test_a_refused_sign_up_keeps_the_login_and_name_and_points_at_the_passwords(served, browser):
    def refused(d):
        if not d.find_elements(By.ID, "sign-up"):
            return False
        if not d.execute_script("return window.typedOnce === true"):
            type_into(d, "new-login", "noura")
            type_into(d, "display-name", "Noura")
            type_into(d, "new-password", "a long secret")
            type_into(d, "new-password-2", "another secret")
            d.find_element(By.CSS_SELECTOR, "#sign-up button[type=submit]").click()
            d.execute_script("window.typedOnce = true")
        return d.find_elements(By.ID, "notice-sign-up")

    in_four_looks(browser, f"{served.base}/play/", "lobby-sign-up-refused", refused)
    browser.get(f"{served.base}/play/?lang=en")
    wait(browser, refused)
    notice = browser.find_element(By.ID, "notice-sign-up")
    assert notice.text == "The two passwords differ." and notice.get_attribute("role") == "alert"
    assert browser.find_element(By.ID, "new-login").get_attribute("value") == "noura"
    assert browser.find_element(By.ID, "display-name").get_attribute("value") == "Noura"
    assert browser.find_element(By.ID, "new-password").get_attribute("aria-invalid") == "true"
    assert browser.execute_script("return document.activeElement.id") == "new-password"
    # The server's refusal too (the login is taken): the fields stay, the focus goes to the login.
    account(served, "saad", "Saad")
    type_into(browser, "new-login", "saad")
    type_into(browser, "new-password", "a long secret")
    type_into(browser, "new-password-2", "a long secret")
    browser.find_element(By.CSS_SELECTOR, "#sign-up button[type=submit]").click()
    wait(browser, lambda d: "saad" in d.find_element(By.ID, "notice-sign-up").text)
    assert browser.find_element(By.ID, "new-login").get_attribute("value") == "saad"
    assert browser.find_element(By.ID, "display-name").get_attribute("value") == "Noura"
    assert browser.execute_script("return document.activeElement.id") == "new-login"


# ---- 5. the language asked for is kept on the next page ----

def test_a_language_asked_for_once_is_kept_on_every_next_page(served, browser):
    browser.get(f"{served.base}/play/?lang=ar")
    wait(browser, lambda d: d.find_elements(By.ID, "sign-up"))
    assert browser.execute_script("return document.documentElement.dir") == "rtl"
    browser.find_element(By.CSS_SELECTOR, "header a[href='/watch/']").click()        # the header's link
    wait(browser, lambda d: d.current_url.endswith("/watch/") and d.find_elements(By.ID, "main"))
    assert browser.execute_script("return document.documentElement.dir") == "rtl"
    assert browser.execute_script("return document.documentElement.lang") == "ar"
    browser.find_element(By.CSS_SELECTOR, "header a[href='/watch/']").click()
    for path in ("/watch/ratings.html", "/play/", "/watch/daily.html"):
        browser.get(f"{served.base}{path}")
        assert wait(browser, lambda d: d.execute_script("return document.documentElement.dir")) == "rtl", path
    browser.get(f"{served.base}/play/?lang=en")
    browser.get(f"{served.base}/watch/")
    assert wait(browser, lambda d: d.execute_script("return document.documentElement.dir")) == "ltr"


# ---- 7. sign out on every page where one is signed in ----

def test_every_page_where_one_is_signed_in_signs_out(served, browser):
    sign_up(browser, served.base, "noura", name="Noura")
    me = served_me(browser, served)
    with as_browser(browser, served.base) as client:
        r = client.post("/tables", json={"seats": [me, "bot", "bot", "bot"]})
    assert r.status_code == 201, r.text
    table = r.json()["table_id"]
    pages = {"/play/": "main", f"/play/table.html?id={table}": "main", "/organise/": "main",
             "/referee/": "main", "/watch/": "main", f"/watch/table.html?id={table}": "main"}
    for path in pages:
        browser.get(f"{served.base}{path}")
        button = wait(browser, lambda d: d.find_elements(By.ID, "sign-out"))[0]
        assert button.text == "Sign out", path
        assert button.find_element(By.XPATH, "./ancestor::header"), path
    browser.get(f"{served.base}/organise/?lang=ar")
    assert wait(browser, lambda d: d.find_elements(By.ID, "sign-out"))[0].text == "خروج"
    wait(browser, lambda d: d.find_element(By.ID, "sign-out").is_enabled())
    browser.find_element(By.ID, "sign-out").click()
    wait(browser, lambda d: "/play/" in d.current_url and d.find_elements(By.ID, "sign-in"))
    assert browser.find_elements(By.ID, "sign-out") == []
    with as_browser(browser, served.base) as client:
        assert client.get("/session").status_code == 401


# ---- 2. the championship card names teams ----

def test_the_championship_card_names_the_teams_not_their_ids(served, browser):
    sign_up(browser, served.base, "noura", name="Noura")
    me = served_me(browser, served)
    organiser = served.user("Organiser")[1]
    r = served.http.post("/championships", headers=organiser, json={"command_id": "c", "name": "Riyadh Cup"})
    assert r.status_code == 201, r.text
    cid = r.json()["championship_id"]
    sara, sara_h = served.user("Sara")
    with as_browser(browser, served.base) as client:               # no team id given: the platform makes one
        r = client.post(f"/championships/{cid}/teams", json={"command_id": "mine", "players": [me, sara]})
    assert r.status_code == 201, r.text
    mine = r.json()["team_id"]
    assert served.http.post(f"/championships/{cid}/teams/{mine}/accept", headers=sara_h).status_code == 200
    (huda, huda_h), (reem, reem_h) = served.user("Huda"), served.user("Reem")
    r = served.http.post(f"/championships/{cid}/teams", headers=huda_h,
                         json={"command_id": "theirs", "players": [huda, reem]})
    assert r.status_code == 201, r.text
    theirs = r.json()["team_id"]
    assert served.http.post(f"/championships/{cid}/teams/{theirs}/accept", headers=reem_h).status_code == 200
    for path in ("registration/close", "draw", "rounds/1/start"):
        r = served.http.post(f"/championships/{cid}/{path}", headers=organiser, json={"command_id": path.replace("/", "-")})
        assert r.status_code == 200, r.text

    def card(d):
        found = d.find_elements(By.CSS_SELECTOR, f"[data-championship='{cid}'] .next-match")
        return found and d.find_element(By.CSS_SELECTOR, f"[data-championship='{cid}']").text

    seen = in_four_looks(browser, f"{served.base}/play/", "lobby-championship", card, card)
    for lang, text in seen.items():
        assert mine not in text and theirs not in text, (lang, text)
        assert "Noura" in text and "Sara" in text and "Huda" in text and "Reem" in text, (lang, text)
    assert "against" in seen["en"] and "ضد" in seen["ar"]
    # Her live table (the match's) names her partner apart from the opponents.
    browser.get(f"{served.base}/play/?lang=en")
    row = wait(browser, lambda d: (e := d.find_elements(By.CSS_SELECTOR, "#live .table-row")) and e[0].text)
    row = row.replace("\u2068", "").replace("\u2069", "")
    assert "with Sara against Huda and Reem" in row or "with Sara against Reem and Huda" in row, row


# ---- 3. a finished table says so, with its result ----

def test_a_finished_table_says_finished_with_its_result_in_the_lobby_and_at_the_table(served, browser):
    sign_up(browser, served.base, "noura", name="Noura")
    me = served_me(browser, served)
    _, referee = served.user("Hakam")
    r = served.http.post("/tables", headers=referee, json={"seats": [me, "bot", "bot", "bot"]})
    assert r.status_code == 201, r.text
    table = r.json()["table_id"]
    with as_browser(browser, served.base) as client:
        assert client.post(f"/tables/{table}/accept").status_code == 200
    r = served.http.post(f"/tables/{table}/rulings", headers=referee, json={
        "command_id": "end", "ruling": {"type": "end_game", "reason": "test", "winner": 0}})
    assert r.status_code == 200, r.text

    row = f"#finished [data-table='{table}']"
    seen = in_four_looks(browser, f"{served.base}/play/", "lobby-finished",
                         lambda d: (found := d.find_elements(By.CSS_SELECTOR, row)) and d.execute_script(
                             "arguments[0].scrollIntoView({block: 'center'}); return true", found[0]),
                         lambda d: d.find_element(By.CSS_SELECTOR, row).text)
    assert "Finished" in seen["en"] and "won" in seen["en"] and "Live" not in seen["en"]
    assert "انتهت" in seen["ar"] and "مباشر" not in seen["ar"]
    assert browser.find_element(By.CSS_SELECTOR, row).get_attribute("data-status") == "finished"
    assert browser.find_elements(By.CSS_SELECTOR, f"#live [data-table='{table}']") == []
    # The table itself, opened from the lobby's replay link's neighbour (its play page): not "Live".
    browser.get(f"{served.base}/play/table.html?id={table}&lang=en")
    state = wait(browser, lambda d: (e := d.find_elements(By.ID, "live-state")) and e[0].text)
    assert state != "Live" and "live" not in browser.find_element(By.ID, "live-state").get_attribute("class")


# ---- 6. a table that records illegal actions, for Qayd, from the lobby ----

def test_the_lobby_opens_a_table_that_records_illegal_actions_and_its_page_offers_qayd(served, browser):
    served.start_workers()
    sign_up(browser, served.base, "noura", name="Noura")
    assert new_table_form(browser) == "baloot"
    assert options(browser, "table-mode") == ["strict", "recorded"]
    choose(browser, "table-mode", "recorded")
    hint = browser.find_element(By.ID, "mode-hint").text
    assert "Qayd" in hint and "record" in hint
    choose(browser, "clock", "0")
    browser.find_element(By.CSS_SELECTOR, "#new-table button[type=submit]").click()
    wait(browser, lambda d: "/play/table.html" in d.current_url and version_of(d) is not None)
    table = browser.current_url.split("id=")[1].split("&")[0]
    with as_browser(browser, served.base) as client:
        assert client.get(f"/tables/{table}/view").json()["terms"]["mode"] == "recorded"
    play_until(browser, lambda d: bool(d.find_elements(By.ID, "qayd-open")), random.Random(5))
    assert browser.find_element(By.ID, "qayd-open").text.startswith("Qayd")


def test_a_person_opens_a_table_of_three_expert_bots_from_the_lobby_and_plays_a_deal_against_them(served, browser):
    served.start_workers()
    sign_up(browser, served.base, "noura", name="Noura")
    assert new_table_form(browser) == "baloot"
    choose(browser, "bot-level", "expert")
    choose(browser, "clock", "0")
    browser.find_element(By.CSS_SELECTOR, "#new-table button[type=submit]").click()
    wait(browser, lambda d: "/play/table.html" in d.current_url and version_of(d) is not None)
    table = browser.current_url.split("id=")[1].split("&")[0]
    with as_browser(browser, served.base) as client:
        terms = client.get(f"/tables/{table}/view").json()["terms"]
    assert terms["bots"] == [None, "expert", "expert", "expert"]
    # The seats say who plays them, in either language.
    names = [e.get_attribute("title") for e in browser.find_elements(By.CSS_SELECTOR, ".seat strong[title]")]
    assert names and all("expert" in n for n in names), names
    play_until(browser, lambda d: bool(d.find_elements(By.ID, "deal-result")), random.Random(11))
    assert browser.find_element(By.ID, "deal-result").get_attribute("data-deal-no") == "1"
    in_four_looks(browser, f"{served.base}/play/table.html?id={table}", "table-expert-bots",
                  lambda d: version_of(d) is not None and bool(d.find_elements(By.CSS_SELECTOR, ".seat strong[title]")))
