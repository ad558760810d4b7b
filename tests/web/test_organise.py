"""The organiser console (/organise/) in a real browser: an organiser creates a 16-team championship, imports
its teams from a CSV file (a file with three bad lines first: each named, nothing stored; then the fixed
one), closes registration, checks the draw against its commitment, runs it with bot teams to a champion while
watching the monitor, forfeits the team that never plays, and exports; a player without the role is refused."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import time
from pathlib import Path

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

from tests.web.conftest import in_four_looks, requested_urls, same_origin
from tests.web.people import as_browser, shown, sign_up, steady, wait

BOTS = 15


def teams_file(bad: bool) -> str:
    lines = ["team,player_1,player_2,club,region,rating"]
    lines += [f"Bot Club {k:02d},bot,bot,Club {k % 4},Region {k % 3},{1500 + k}" for k in range(BOTS)]
    lines.append("Sleepy Camels,sleepy,camel,Night Club,Riyadh,1400")
    if bad:
        lines[3] = "Bot Club 02,bot,bot,Club 2,Region 2,strong"        # line 4: no number
        lines[5] = "bot club 00,bot,bot,,,"                            # line 6: a name already on line 2
        lines[-1] = "Sleepy Camels,sleepy,nobody,Night Club,Riyadh,1400"   # line 17: no such login
    return "\n".join(lines) + "\n"


async def grant_organiser(pool, user_id: str) -> None:
    """What `baloot account grant LOGIN organiser` stores."""
    await pool.execute("INSERT INTO grants (scope, scope_id, user_id, role) VALUES ('platform', '', $1, 'organiser')",
                       user_id)


def click(driver, css: str) -> None:
    steady(lambda: wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, css))[0].click())


def choose_file(driver, path: Path) -> None:
    box = wait(driver, lambda d: d.find_elements(By.ID, "csv-file"))[0]
    box.send_keys(str(path))


def me(driver, base: str) -> str:
    with as_browser(driver, base) as http:
        return http.get("/session").json()["user_id"]


async def test_an_organiser_runs_a_championship_from_the_console(served, browser, more_browsers, pool, tmp_path):
    served.start_workers()
    sleepy = more_browsers()
    sign_up(sleepy, served.base, "sleepy", name="Sleepy")
    camel = more_browsers()
    sign_up(camel, served.base, "camel", name="Camel")
    sign_up(browser, served.base, "maryam", name="Maryam")
    await grant_organiser(pool, me(browser, served.base))
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})

    browser.get(f"{served.base}/organise/")
    wait(browser, lambda d: d.find_elements(By.ID, "new-championship"))
    browser.find_element(By.ID, "name").send_keys("Riyadh Night Cup")
    for field, value in (("clock", ""), ("pace", "0"), ("every", "manual")):      # she starts each round
        browser.find_element(By.CSS_SELECTOR, f"#{field} option[value='{value}']").click()
    browser.find_element(By.CSS_SELECTOR, "#new-championship button[type=submit]").click()
    wait(browser, lambda d: "id=" in d.current_url and d.find_elements(By.ID, "import-form"))
    cid = browser.current_url.split("id=")[1].split("&")[0]

    # A file with three bad lines: each named, with its column; nothing stored.
    bad = tmp_path / "teams-bad.csv"
    bad.write_text(teams_file(bad=True))
    choose_file(browser, bad)
    click(browser, "#import-file")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#file-errors tr[data-line]"))
    named = {(r.get_attribute("data-line"), r.get_attribute("data-column"))
             for r in browser.find_elements(By.CSS_SELECTOR, "#file-errors tr[data-line]")}
    assert named == {("4", "rating"), ("6", "team"), ("17", "player_2")}
    with as_browser(browser, served.base) as http:
        assert http.get(f"/championships/{cid}").json()["teams"] == []
    # The fixed file: checked, then imported.
    good = tmp_path / "teams.csv"
    good.write_text(teams_file(bad=False))
    browser.get(browser.current_url)
    choose_file(browser, good)
    click(browser, "#check-file")
    text, = shown(browser, "#file-ok")
    assert "16" in text
    click(browser, "#import-file")                  # the file checked: not chosen again
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#teams tbody tr")) == 16)

    # Registration closes with the draw's commitment; the draw reveals the seed, checked here and in the page.
    click(browser, "#close-registration")
    commitment, = shown(browser, "#commitment")
    click(browser, "#make-draw")
    seed, = shown(browser, "#seed")
    assert hashlib.sha256(seed.encode()).hexdigest() == commitment
    assert shown(browser, "#seed-check", "data-ok")[1] == "true"

    # Round by round: the bots play (the monitor follows by itself); the team that never plays is forfeited.
    sleepy_team = next(t["team_id"] for t in summary_of(browser, served.base, cid)["teams"]
                       if t["name"] == "Sleepy Camels")
    for round_no in range(1, 5):
        click(browser, "#start-round")
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#monitor[data-round='{round_no}']"))
        if round_no == 1:
            in_four_looks(browser, browser.current_url, "organise-monitor",
                          lambda d: d.find_elements(By.CSS_SELECTOR, "#matches tbody tr"))
        while True:
            rows = wait(browser, lambda d: round_settled(d, sleepy_team), timeout=180)
            waiting = next((m for m, state, absent in rows if absent and state != "finished"), None)
            if waiting is None:
                break
            if round_no == 1:
                # First a bot for the seat the table waits on (asked once, then done): the table's own event.
                table = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#matches tr[data-match='{waiting}'] "
                                                                                 "button.bot-seat"))[0].get_attribute("data-table")
                click(browser, f"#matches tr[data-match='{waiting}'] button.bot-seat")
                click(browser, f"#matches tr[data-match='{waiting}'] button.bot-seat.armed")
                wait(browser, lambda d: d.find_elements(By.ID, "notice"))
                handed = await pool.fetchval("SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = "
                                             "'seat_handed_to_bot'", f"table-{table}")
                assert handed == 1
            button = f"#matches tr[data-match='{waiting}'] button.forfeit[data-absent='{sleepy_team}']"
            click(browser, button)                                     # asks first
            assert shown(browser, button + ".armed", "aria-pressed")[1] == "true"
            with as_browser(browser, served.base) as http:                # nothing done yet
                match = next(m for m in http.get(f"/championships/{cid}/matches", params={"round": round_no}).json()
                             if m["match_id"] == waiting)
            assert match["status"] != "decided"
            click(browser, button + ".armed")
            wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#matches tr[data-match='{waiting}']"
                                                                       "[data-state='finished']"))
    click(browser, "#finish")
    click(browser, "#finish-confirm")               # what finishing does, said first
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#refusal, #notice"))
    assert not browser.find_elements(By.ID, "refusal"), browser.find_element(By.ID, "refusal").text
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#champ-status[data-status='finished']"))
    summary = summary_of(browser, served.base, cid)
    assert summary["status"] == "finished" and summary["champion"] not in (None, sleepy_team)
    champion = next(t["name"] for t in summary["teams"] if t["team_id"] == summary["champion"])
    assert shown(browser, "#champion")[0] == champion

    # The exports: each file as the API reports it.
    click(browser, "#export-teams\\.csv")
    exported = wait(browser, lambda d: (tmp_path / f"{cid}-teams.csv").exists() and (tmp_path / f"{cid}-teams.csv"))
    rows = list(csv.DictReader(io.StringIO(exported.read_text(encoding="utf-8"))))
    assert [(r["team_id"], r["name"], r["club"]) for r in rows] == [(t["team_id"], t["name"], t["club"])
                                                                   for t in summary["teams"]]
    with as_browser(browser, served.base) as http:
        standings = http.get(f"/championships/{cid}/standings").json()
    click(browser, "#export-standings\\.csv")
    exported = wait(browser, lambda d: (tmp_path / f"{cid}-standings.csv").exists()
                    and (tmp_path / f"{cid}-standings.csv"))
    rows = list(csv.DictReader(io.StringIO(exported.read_text(encoding="utf-8"))))
    assert [r["team_id"] for r in rows] == [s["team_id"] for s in standings]
    in_four_looks(browser, f"{served.base}/organise/?id={cid}", "organise-championship",
                  lambda d: d.find_elements(By.ID, "exports"))
    in_four_looks(browser, f"{served.base}/organise/", "organise-list",
                  lambda d: d.find_elements(By.CSS_SELECTOR, "#championships li"))
    assert same_origin(requested_urls(browser), served.base) == []

    # Sleepy, a player, has no part in it: the console refuses him, and so does every action it would send.
    sleepy.get(f"{served.base}/organise/")
    shown(sleepy, "#refusal[data-rule='not_organiser']")
    sleepy.get(f"{served.base}/organise/?id={cid}")
    shown(sleepy, "#refusal[data-rule='not_referee']")
    with as_browser(sleepy, served.base) as http:
        for path, body in ((f"/championships/{cid}/finish", {"command_id": "x"}),
                           (f"/championships/{cid}/registration/close", {"command_id": "y"})):
            r = http.post(path, json=body)
            assert r.status_code == 403 and r.json()["rule"] == "not_organiser", r.text
        assert http.get(f"/championships/{cid}/export/teams.csv").status_code == 403


def summary_of(driver, base: str, cid: str) -> dict:
    with as_browser(driver, base) as http:
        return http.get(f"/championships/{cid}").json()


def round_settled(driver, sleepy_team: str):
    """The monitor's rows once every match is finished but (perhaps) Sleepy Camels', which waits for ever:
    [(match, state, whether Sleepy Camels plays it)]; False while bots are still playing."""
    try:
        rows = [(r.get_attribute("data-match"), r.get_attribute("data-state"),
                 bool(r.find_elements(By.CSS_SELECTOR, f"button.forfeit[data-absent='{sleepy_team}']")))
                for r in driver.find_elements(By.CSS_SELECTOR, "#matches tbody tr")]
    except StaleElementReferenceException:  # the monitor redrew under us: look again
        return False
    if not rows or any(state != "finished" and not mine for _, state, mine in rows):
        return False
    return rows


async def test_the_console_follows_a_10240_team_round_and_finds_a_team(served, browser, pool):
    """10,240 teams imported in one request, round 1 started (2,048 tables, 6,144 byes): the console's monitor
    shows the round's counts and its first page, and its search finds one team's match."""
    logins = [f"pl{i:05d}" for i in range(2 * 10_240)]
    await pool.executemany("INSERT INTO users (user_id, name, kind) VALUES ($1, $1, 'human')", [(x,) for x in logins])
    await pool.executemany("INSERT INTO credentials (user_id, login, password_hash) VALUES ($1, $1, 'x')",
                           [(x,) for x in logins])
    sign_up(browser, served.base, "maryam", name="Maryam")
    await grant_organiser(pool, me(browser, served.base))
    text = "team,player_1,player_2,region\n" + "".join(
        f"Team {t:05d},{logins[2 * t]},{logins[2 * t + 1]},Region {t % 13}\n" for t in range(10_240))
    with as_browser(browser, served.base) as http:
        cid = http.post("/championships", json={"command_id": "big", "name": "Saudi Cup"}).json()["championship_id"]
        r = http.post(f"/championships/{cid}/teams/import?command_id=big-import", content=text.encode(),
                      headers={"content-type": "text/csv"})
        assert r.status_code == 201 and r.json()["teams"] == 10_240, r.text[:300]
        for step in ("registration/close", "draw", "rounds/1/start"):
            assert http.post(f"/championships/{cid}/{step}", json={"command_id": step.replace("/", "-")},
                             timeout=120).status_code == 200
    started = time.perf_counter()
    browser.get(f"{served.base}/organise/?id={cid}")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#matches tbody tr")) == 50)
    print(f"the console drew round 1 of 10,240 teams in {time.perf_counter() - started:.2f} s")
    counts = {b.get_attribute("data-state"): b.text for b in browser.find_elements(By.CSS_SELECTOR, ".states button")}
    assert "(8192)" in counts[""] and "(2048)" in counts["playing"] and "(6144)" in counts["finished"]
    assert "of 8192" in browser.find_element(By.ID, "page").text
    box = browser.find_element(By.ID, "q")
    box.send_keys("team 05123")
    started = time.perf_counter()
    browser.find_element(By.CSS_SELECTOR, "form.search button").click()
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#matches tbody tr")) == 1)
    print(f"the console's search answered in {time.perf_counter() - started:.2f} s")
    assert "Team 05123" in browser.find_element(By.CSS_SELECTOR, "#matches tbody tr").text


async def test_a_championship_created_with_a_schedule_runs_itself(served, browser, pool):
    """Round 1's time and the next rounds' spacing in the console's form become the championship's schedule
    (the organiser's consent that the workers run it), in the browser's time zone."""
    sign_up(browser, served.base, "maryam", name="Maryam")
    await grant_organiser(pool, me(browser, served.base))
    browser.get(f"{served.base}/organise/")
    wait(browser, lambda d: d.find_elements(By.ID, "new-championship"))
    browser.find_element(By.ID, "name").send_keys("Scheduled Cup")
    browser.execute_script("document.getElementById('first_round').value = '2030-01-01T18:00'")
    browser.find_element(By.CSS_SELECTOR, "#every option[value='60']").click()
    browser.find_element(By.CSS_SELECTOR, "#hands option[value='always']").click()
    browser.find_element(By.CSS_SELECTOR, "#profile option[value='belote_classic']").click()
    # The profile's switches, at its values: one changed, and only it is sent.
    browser.find_element(By.CSS_SELECTOR, "#new-championship details summary").click()
    kawesh = wait(browser, lambda d: d.find_elements(By.ID, "switch-kawesh"))[0]
    was = kawesh.is_selected()
    kawesh.click()
    browser.find_element(By.CSS_SELECTOR, "#new-championship button[type=submit]").click()
    wait(browser, lambda d: "id=" in d.current_url)
    cid = browser.current_url.split("id=")[1].split("&")[0]
    summary = summary_of(browser, served.base, cid)
    first = dt.datetime.fromisoformat(browser.execute_script("return new Date('2030-01-01T18:00').toISOString()")
                                      .replace("Z", "+00:00"))
    slots = summary["settings"]["schedule"]
    assert [s["round"] for s in slots] == list(range(1, 15))
    assert [dt.datetime.fromisoformat(s["starts_at"]) for s in slots[:3]] == [
        first, first + dt.timedelta(hours=1), first + dt.timedelta(hours=2)]
    assert (summary["run"]["hands_policy"], summary["run"]["delay_seconds"]) == ("always", 1800)
    assert summary["settings"]["profile"] == "belote_classic"
    assert summary["settings"]["switches"] == {"kawesh": not was}


async def test_the_organiser_withdraws_a_team_and_brings_in_a_substitute(served, browser, pool):
    """From the teams table, each asked once before it is done: a substitute in for a player, a withdrawal."""
    sign_up(browser, served.base, "maryam", name="Maryam")
    await grant_organiser(pool, me(browser, served.base))
    await pool.executemany("INSERT INTO users (user_id, name, kind) VALUES ($1, $2, 'human')",
                           [(f"u-{x}", x.title()) for x in ("saad", "noura", "fahad", "ahmad", "badr")])
    await pool.executemany("INSERT INTO credentials (user_id, login, password_hash) VALUES ($1, $2, 'x')",
                           [(f"u-{x}", x) for x in ("saad", "noura", "fahad", "ahmad", "badr")])
    with as_browser(browser, served.base) as http:
        cid = http.post("/championships", json={"command_id": "c", "name": "Club Night"}).json()["championship_id"]
        r = http.post(f"/championships/{cid}/teams/import?command_id=i", headers={"content-type": "text/csv"},
                      content=b"team,player_1,player_2,substitute_1\nFalcons,saad,noura,badr\nPearls,fahad,ahmad,\n")
        assert r.status_code == 201, r.text
    teams = {t["name"]: t["team_id"] for t in summary_of(browser, served.base, cid)["teams"]}
    # Two players propose a team of their own: it waits for the second's answer, and the organiser sees so.
    (omar, omar_headers), (yousef, _) = served.user("Omar"), served.user("Yousef")
    r = served.http.post(f"/championships/{cid}/teams", headers=omar_headers,
                         json={"command_id": "p", "team_id": "EAGLES", "players": [omar, yousef]})
    assert r.status_code == 201 and r.json()["status"] == "invited"
    browser.get(f"{served.base}/organise/?id={cid}")
    assert "Yousef" in shown(browser, "#proposals li[data-team='EAGLES'][data-status='invited']")[0]
    row = f"#teams tr[data-team='{teams['Falcons']}']"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, row))
    assert "Badr" in browser.find_element(By.CSS_SELECTOR, row).text          # the substitute, by name
    click(browser, f"{row} button.substitute")                               # Badr in for Saad: asked first
    assert summary_of(browser, served.base, cid)["teams"][0]["players"] == ["u-saad", "u-noura"]
    click(browser, f"{row} button.substitute.armed")
    wait(browser, lambda d: summary_of(d, served.base, cid)["teams"][0]["players"][0] == "u-badr")
    pearls = f"#teams tr[data-team='{teams['Pearls']}']"
    click(browser, f"{pearls} button.withdraw")
    click(browser, f"{pearls} button.withdraw.armed")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"{pearls}.withdrawn"))
    assert next(t for t in summary_of(browser, served.base, cid)["teams"] if t["name"] == "Pearls")["withdrawn"]


async def test_the_organiser_keeps_a_check_in_window_open_longer(served, browser, pool):
    sign_up(browser, served.base, "maryam", name="Maryam")
    await grant_organiser(pool, me(browser, served.base))
    logins = ("saad", "noura", "fahad", "ahmad")
    await pool.executemany("INSERT INTO users (user_id, name, kind) VALUES ($1, $2, 'human')",
                           [(f"u-{x}", x.title()) for x in logins])
    await pool.executemany("INSERT INTO credentials (user_id, login, password_hash) VALUES ($1, $2, 'x')",
                           [(f"u-{x}", x) for x in logins])
    with as_browser(browser, served.base) as http:
        cid = http.post("/championships", json={"command_id": "c", "name": "Night", "check_in_seconds": 600}
                        ).json()["championship_id"]
        http.post(f"/championships/{cid}/teams/import?command_id=i", headers={"content-type": "text/csv"},
                  content=b"team,player_1,player_2\nFalcons,saad,noura\nPearls,fahad,ahmad\n")
        for step in ("registration/close", "draw", "rounds/1/start"):
            assert http.post(f"/championships/{cid}/{step}", json={"command_id": step.replace("/", "-")}).status_code == 200
        before = http.get(f"/championships/{cid}/monitor").json()["check_in_closes_at"]
    browser.get(f"{served.base}/organise/?id={cid}")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#matches tr[data-state='waiting_check_in']"))
    click(browser, "#extend-check-in")
    wait(browser, lambda d: d.find_elements(By.ID, "notice"))
    with as_browser(browser, served.base) as http:
        after = http.get(f"/championships/{cid}/monitor").json()["check_in_closes_at"]
    assert dt.datetime.fromisoformat(after) - dt.datetime.fromisoformat(before) == dt.timedelta(seconds=300)


async def test_a_player_the_organiser_invited_claims_his_account_in_the_lobby(served, browser, more_browsers, pool,
                                                                             tmp_path):
    sign_up(browser, served.base, "maryam", name="Maryam")
    await grant_organiser(pool, me(browser, served.base))
    with as_browser(browser, served.base) as http:
        cid = http.post("/championships", json={"command_id": "c", "name": "Club Night"}).json()["championship_id"]
    teams = tmp_path / "teams.csv"
    teams.write_text("team,player_1,player_2\nFalcons,+newbie,bot\nPearls,bot,bot\n")
    browser.get(f"{served.base}/organise/?id={cid}")
    choose_file(browser, teams)
    click(browser, "#import-file")
    code, = shown(browser, "#invited tr[data-login='newbie'] .invite-code")
    assert len(code) >= 20
    # Newbie, on his own device: the code and a password of his own, and he is in his lobby.
    newbie = more_browsers()
    newbie.get(f"{served.base}/play/")
    wait(newbie, lambda d: d.find_elements(By.ID, "claim"))
    for box, text in (("claim-code", code), ("claim-name", "New Bie"), ("claim-password", "my own secret"),
                      ("claim-password-2", "my own secret")):
        newbie.find_element(By.ID, box).send_keys(text)
    newbie.find_element(By.CSS_SELECTOR, "#claim button[type=submit]").click()
    assert "New Bie (newbie)" in shown(newbie, "#me")[0]
    falcons = next(t for t in summary_of(browser, served.base, cid)["teams"] if t["name"] == "Falcons")
    assert falcons["players"][0] == me(newbie, served.base)


# ---- issue 46: the organiser's console, finished ----

def into_view(css: str, when: str | None = None):
    """A page's readiness for its screenshot: ``when`` (else ``css``) is on the page, and ``css`` is scrolled to the
    screen's top, as its person would look at it."""
    def ready(d):
        if not d.find_elements(By.CSS_SELECTOR, when or css):
            return False
        found = d.find_elements(By.CSS_SELECTOR, css)
        if found:
            d.execute_script("arguments[0].scrollIntoView({block: 'start'})", found[0])
        return bool(found)
    return ready


def four_bot_teams() -> str:
    return "team,player_1,player_2\n" + "".join(f"Bot Club {k},bot,bot\n" for k in range(4))


async def organiser_with(browser, served, pool, name: str = "Club Night", teams: str | None = None, **settings) -> str:
    """Maryam, an organiser, signed in, and a championship of hers (its teams imported, if given): its id."""
    sign_up(browser, served.base, "maryam", name="Maryam")
    await grant_organiser(pool, me(browser, served.base))
    with as_browser(browser, served.base) as http:
        cid = http.post("/championships", json={"command_id": "c", "name": name, **settings}).json()["championship_id"]
        if teams is not None:
            r = http.post(f"/championships/{cid}/teams/import?command_id=i", headers={"content-type": "text/csv"},
                          content=teams.encode())
            assert r.status_code == 201, r.text
    return cid


async def test_the_file_checked_is_the_file_imported_and_a_refusal_says_why(served, browser, pool, tmp_path):
    """Check the file, then Import: the file checked is imported, not chosen again; Import with no file, or a
    file that is not UTF-8, says what is wrong in words, in the page's language, beside the form."""
    cid = await organiser_with(browser, served, pool)
    url = f"{served.base}/organise/?id={cid}"
    browser.get(url)
    click(browser, "#import-file")                                   # no file chosen yet
    text, rule = shown(browser, "#import-refusal", "data-rule")
    assert text == "Choose the teams' CSV file first: no file is chosen." and rule == ""
    latin1 = tmp_path / "latin1.csv"
    latin1.write_bytes("team,player_1,player_2\nFalcons é,bot,bot\nPearls,bot,bot\n".encode("latin-1"))
    choose_file(browser, latin1)
    wait(browser, lambda d: not d.find_elements(By.ID, "import-refusal"))    # said of no file: gone with one
    click(browser, "#check-file")
    assert "not UTF-8 text" in shown(browser, "#import-refusal")[0]
    good = tmp_path / "teams.csv"
    good.write_text(four_bot_teams())
    choose_file(browser, good)
    assert "teams.csv" in shown(browser, "#chosen-file")[0]
    click(browser, "#check-file")
    assert "4 teams are ready" in shown(browser, "#file-ok")[0]
    assert summary_of(browser, served.base, cid)["teams"] == []              # a check stores nothing
    click(browser, "#import-file")                                   # the file checked, not chosen again
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#teams tbody tr")) == 4)
    assert not browser.find_elements(By.ID, "import-refusal")
    assert [t["name"] for t in summary_of(browser, served.base, cid)["teams"]] == [f"Bot Club {k}" for k in range(4)]

    # In Arabic, the refusal is Arabic.
    other = await organiser_again(browser, served)
    browser.get(f"{served.base}/organise/?id={other}&lang=ar")
    click(browser, "#import-file")
    assert shown(browser, "#import-refusal")[0] == "اختر ملف CSV للفرق أولاً: لم يُختر أي ملف."

    def checked(d):                                                  # the file chosen and checked: what she sees
        if d.find_elements(By.ID, "file-ok"):
            return True
        if not d.find_elements(By.ID, "chosen-file"):
            d.find_element(By.ID, "csv-file").send_keys(str(good))
            d.find_element(By.ID, "check-file").click()
        return False
    in_four_looks(browser, f"{served.base}/organise/?id={other}", "organise-import", checked)


async def organiser_again(browser, served) -> str:
    """Another championship of the organiser signed in, with no team yet."""
    with as_browser(browser, served.base) as http:
        return http.post("/championships", json={"command_id": "c2", "name": "Second Night"}).json()["championship_id"]


async def test_the_draw_shows_round_1s_pairings_before_it_starts(served, browser, pool):
    """Once the draw is made, the console shows round 1's pairings by the teams' names; they are the matches
    the round then starts with."""
    teams = "team,player_1,player_2\n" + "".join(f"{n},bot,bot\n" for n in
                                                 ("Falcons", "Pearls", "Camels", "Palms", "Dunes", "Oasis"))
    cid = await organiser_with(browser, served, pool, teams=teams)
    url = f"{served.base}/organise/?id={cid}"
    browser.get(url)
    click(browser, "#close-registration")
    shown(browser, "#commitment")
    assert not browser.find_elements(By.ID, "pairings")                 # no draw, no pairings
    click(browser, "#make-draw")
    shown(browser, "#seed")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#pairings[data-round='1'] #pairings-table tbody tr"))
    rows = [(r.get_attribute("data-match"), [td.text for td in r.find_elements(By.TAG_NAME, "td")[1:]])
            for r in browser.find_elements(By.CSS_SELECTOR, "#pairings-table tbody tr")]
    in_four_looks(browser, url, "organise-pairings", into_view("#pairings", "#pairings-table tbody tr"))
    browser.get(url)
    click(browser, "#start-round")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#monitor[data-round='1']"))
    assert not browser.find_elements(By.ID, "pairings")                 # started: the monitor has them
    names = {t["team_id"]: t["name"] for t in summary_of(browser, served.base, cid)["teams"]}
    with as_browser(browser, served.base) as http:
        matches = http.get(f"/championships/{cid}/matches", params={"round": 1}).json()
    assert rows == [(m["match_id"], [names[m["team_a"]], names[m["team_b"]] if m["team_b"] else "bye"])
                    for m in matches]
    assert sum(1 for _, pair in rows if "bye" in pair) == 2             # six teams in a bracket of eight


async def test_the_next_rounds_start_by_themselves_once_the_last_is_decided(served, browser, pool):
    """"The next rounds start: as soon as the last one is decided" with no time for round 1: she runs round
    1, and the workers start round 2 when it is decided (nobody clicks), then finish the championship."""
    served.start_workers(schedules=True)
    sign_up(browser, served.base, "maryam", name="Maryam")
    organiser = me(browser, served.base)
    await grant_organiser(pool, organiser)
    browser.get(f"{served.base}/organise/")
    wait(browser, lambda d: d.find_elements(By.ID, "new-championship"))
    browser.find_element(By.ID, "name").send_keys("Quick Night")
    for field, value in (("clock", ""), ("pace", "0"), ("every", "0")):
        browser.find_element(By.CSS_SELECTOR, f"#{field} option[value='{value}']").click()
    assert browser.find_element(By.ID, "first_round").get_attribute("value") == ""
    browser.find_element(By.CSS_SELECTOR, "#new-championship button[type=submit]").click()
    wait(browser, lambda d: "id=" in d.current_url and d.find_elements(By.ID, "import-form"))
    cid = browser.current_url.split("id=")[1].split("&")[0]
    assert [s["round"] for s in summary_of(browser, served.base, cid)["settings"]["schedule"]] == [2]
    with as_browser(browser, served.base) as http:
        r = http.post(f"/championships/{cid}/teams/import?command_id=i", headers={"content-type": "text/csv"},
                      content=four_bot_teams().encode())
        assert r.status_code == 201, r.text
    browser.get(browser.current_url)
    for step in ("#close-registration", "#make-draw", "#start-round"):
        click(browser, step)
        wait(browser, lambda d: d.find_elements(By.ID, "notice"))
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#monitor[data-round='1']"))
    # The bots play round 1; round 2 (the final) starts with no click, and the championship finishes.
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#monitor[data-round='2']"), timeout=240)
    wait(browser, lambda d: summary_of(d, served.base, cid)["status"] == "finished", timeout=240)
    started = await pool.fetch("SELECT metadata->>'actor' AS actor, metadata->>'command_id' AS command_id FROM events "
                               "WHERE stream_id = $1 AND event_type = 'round_paired' ORDER BY version",
                               f"championship-{cid}")
    assert [r["actor"] for r in started] == [organiser, "schedule"]
    assert started[1]["command_id"] == "tick/round-2/start"


async def test_the_spacing_of_rounds_needs_round_1s_time(served, browser, pool):
    """Rounds every hour with no time for round 1: the form says why it cannot, and keeps what was filled in."""
    sign_up(browser, served.base, "maryam", name="Maryam")
    await grant_organiser(pool, me(browser, served.base))
    browser.get(f"{served.base}/organise/")
    wait(browser, lambda d: d.find_elements(By.ID, "new-championship"))
    browser.find_element(By.ID, "name").send_keys("Spaced Night")
    browser.find_element(By.CSS_SELECTOR, "#every option[value='60']").click()
    browser.find_element(By.CSS_SELECTOR, "#new-championship button[type=submit]").click()
    assert "round 1's time" in shown(browser, "#create-refusal")[0]
    assert browser.find_element(By.ID, "name").get_attribute("value") == "Spaced Night"
    with as_browser(browser, served.base) as http:
        assert http.get("/championships", params={"organised": "true"}).json() == []


async def test_finishing_asks_first_and_then_no_team_withdraws(served, browser, pool):
    """Finish opens a dialog saying what finishing does; "Not yet" leaves the championship as it was, "Finish
    it" finishes it; after the finish no team offers Withdraw, and the server refuses one, storing nothing."""
    cid = await organiser_with(browser, served, pool, teams="team,player_1,player_2\nFalcons,bot,bot\nPearls,bot,bot\n")
    with as_browser(browser, served.base) as http:
        for step in ("registration/close", "draw", "rounds/1/start"):
            assert http.post(f"/championships/{cid}/{step}", json={"command_id": step.replace("/", "-")}).status_code == 200
        final, = http.get(f"/championships/{cid}/matches").json()
        falcons = next(t["team_id"] for t in http.get(f"/championships/{cid}").json()["teams"] if t["name"] == "Falcons")
        r = http.post(f"/championships/{cid}/matches/{final['match_id']}/forfeit",
                      json={"command_id": "f", "absent": falcons})
        assert r.status_code == 200, r.text
    url = f"{served.base}/organise/?id={cid}"
    browser.get(url)
    click(browser, "#finish")
    text, = shown(browser, "#finish-dialog[open]")
    for words in ("final ranking is recorded", "No result can change", "No team can withdraw", "cannot be undone"):
        assert words in text
    click(browser, "#finish-cancel")
    wait(browser, lambda d: not d.find_elements(By.ID, "finish-dialog"))
    assert summary_of(browser, served.base, cid)["status"] == "running"

    def asked(d):
        if d.find_elements(By.CSS_SELECTOR, "#finish-dialog[open]"):
            return True
        for button in d.find_elements(By.ID, "finish"):
            button.click()
        return False
    in_four_looks(browser, url, "organise-finish", asked)
    browser.get(url)
    click(browser, "#finish")
    click(browser, "#finish-confirm")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#champ-status[data-status='finished']"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#teams tbody tr")) == 2
    assert not browser.find_elements(By.CSS_SELECTOR, "#teams button.withdraw")
    before = await pool.fetchval("SELECT max(version) FROM events WHERE stream_id = $1", f"championship-{cid}")
    with as_browser(browser, served.base) as http:
        r = http.post(f"/championships/{cid}/teams/{falcons}/withdraw", json={"command_id": "late", "reason": "late"})
    assert r.status_code == 409 and r.json()["rule"] == "championship_finished", r.text
    assert await pool.fetchval("SELECT max(version) FROM events WHERE stream_id = $1", f"championship-{cid}") == before


async def test_the_organiser_names_and_removes_a_referee_from_the_console(served, browser, pool):
    """The referees panel: a referee named by his login, another by his name, one removed (asked once); a
    name nobody has is refused in words, in the page's language."""
    cid = await organiser_with(browser, served, pool)
    await pool.executemany("INSERT INTO users (user_id, name, kind, name_key) VALUES ($1, $2, 'human', lower($2))",
                           [("u-saad", "Saad"), ("u-noura", "Noura")])
    await pool.executemany("INSERT INTO credentials (user_id, login, password_hash) VALUES ($1, $2, 'x')",
                           [("u-saad", "saad"), ("u-noura", "noura77")])
    url = f"{served.base}/organise/?id={cid}"
    browser.get(url)
    assert shown(browser, "#referee-list")[0] == "No referee yet: you referee it yourself."

    def name(who: str) -> None:
        box = wait(browser, lambda d: d.find_elements(By.ID, "referee_person"))[0]
        box.clear()
        box.send_keys(who)
        click(browser, "#add-referee")

    name("saad")                                                     # by login
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#referee-list li[data-user='u-saad']"))
    name("Noura")                                                    # by name
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#referee-list li[data-user='u-noura']"))
    listed = browser.find_element(By.CSS_SELECTOR, "#referee-list li[data-user='u-noura']").text
    assert "Noura" in listed and "noura77" not in listed                # her name, never her login
    name("nobody-here")
    text, rule = shown(browser, "#referees-refusal", "data-rule")
    assert rule == "unknown_user" and "Nobody has the login or the name" in text and "nobody-here" in text
    with as_browser(browser, served.base) as http:
        assert {r["user_id"] for r in http.get(f"/championships/{cid}/referees").json()} == {"u-saad", "u-noura"}
    in_four_looks(browser, url, "organise-referees", into_view("#referees", "#referee-list li[data-user='u-noura']"))
    browser.get(url)
    click(browser, "#referee-list li[data-user='u-saad'] button.remove-referee")
    click(browser, "#referee-list li[data-user='u-saad'] button.remove-referee.armed")
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, "#referee-list li[data-user='u-saad']"))
    with as_browser(browser, served.base) as http:
        assert [r["user_id"] for r in http.get(f"/championships/{cid}/referees").json()] == ["u-noura"]
    browser.get(f"{url}&lang=ar")
    name("لا أحد")
    assert shown(browser, "#referees-refusal")[0].startswith("unknown_user — لا أحد اسم دخوله أو اسمه")


async def test_on_a_phone_the_consoles_tables_are_labelled_cards(served, browser, pool):
    """At 390×844 each row of the monitor and of the teams is a card: every value after its column's label, its
    actions on a line of their own; the page is no wider than the phone and a card is a few lines tall."""
    teams = "team,player_1,player_2\n" + "".join(f"Team {k:02d},bot,bot\n" for k in range(16))
    cid = await organiser_with(browser, served, pool, teams=teams)
    with as_browser(browser, served.base) as http:
        for step in ("registration/close", "draw", "rounds/1/start"):
            assert http.post(f"/championships/{cid}/{step}", json={"command_id": step.replace("/", "-")}).status_code == 200
    url = f"{served.base}/organise/?id={cid}"
    browser.set_window_size(390, 844)
    try:
        browser.get(url)
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#matches tbody tr")) == 8)
        for table, heads in (("matches", ["Teams", "State", "Result", "Actions"]),
                             ("teams", ["Players", "Club", "Region", "Rating", "Actions"])):
            # Each row: its card's size and, for each value shown but the first (the card's title) and the
            # buttons (which say what they do), the label shown above it.
            cards = browser.execute_script(
                "return [...document.querySelectorAll(arguments[0] + ' tbody tr')].map(tr => ({height: "
                "tr.getBoundingClientRect().height, width: tr.getBoundingClientRect().width, labels: [...tr.cells]"
                ".slice(1).map((td, k) => [k, getComputedStyle(td).display === 'none' || td.querySelector('button')"
                " ? null : getComputedStyle(td, '::before').content])}))", f"#{table}")
            assert cards, table
            for card in cards:
                labelled = [(heads[k], label) for k, label in card["labels"] if label is not None]
                assert labelled and all(label == f'"{head}"' for head, label in labelled), (table, card)
                assert card["width"] <= 390 and card["height"] < 220, (table, card)
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
    finally:
        browser.set_window_size(1366, 900)
    in_four_looks(browser, url, "organise-phone-tables", into_view("#matches", "#matches tbody tr:nth-child(8)"))
    in_four_looks(browser, url, "organise-phone-teams", into_view("#teams", "#teams tbody tr:nth-child(16)"))
