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
    for field, value in (("clock", ""), ("pace", "0")):
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
    choose_file(browser, good)
    click(browser, "#import-file")
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
