"""The referee's desk in the browser (/referee/): a player calls the referee from his table's page; the referee
finds the call in his queue, claims it (a second referee's page then shows it taken and cannot claim it),
steps through the deal with every hand, and rules "annul and replay" with a reason; the player's page shows
the ruling as it is made; the hand record carries the ruling with its signed receipt, and the log verifies
with it. The platform's referee (`baloot account grant LOGIN referee`) finds the calls of a championship's
tables he has nothing else to do with, named by championship, round and teams, and rules them; never the call
of a table where he plays. The queue, the desk and the ruling in English and Arabic, desktop and phone
(screenshots)."""

from __future__ import annotations

import asyncio
import random

import httpx
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from services.anchor.keys import default_signer
from services.anchor.verify import verify_log
from services.cli import main
from services.db import schema_url
from tests.web.conftest import in_four_looks, requested_urls, same_origin
from tests.api.test_tables import Ids, act, action_count, play_until, to_revoke_chance
from tests.web.people import as_browser, shown, sign_up, steady, type_into, version_of, wait


def user_id(driver, base: str) -> str:
    with as_browser(driver, base) as me:
        return me.get("/session").json()["user_id"]


async def test_a_player_calls_the_referee_who_claims_steps_through_and_rules_replay(served, browser, more_browsers,
                                                                                   pool):
    referee_browser, second_browser = more_browsers(), more_browsers()
    sign_up(referee_browser, served.base, "hakam", name="Hakam")
    sign_up(second_browser, served.base, "nasser", name="Nasser")
    sign_up(browser, served.base, "noura", name="Noura")
    noura = user_id(browser, served.base)
    with as_browser(referee_browser, served.base) as hakam:          # he opens the table and does not sit: its referee
        r = hakam.post("/tables", json={"seats": [noura, "bot", "bot", "bot"], "mode": "recorded",
                                        "bot_pace_seconds": 0})
        assert r.status_code == 201, r.text
        table_id = r.json()["table_id"]
    accepted = as_browser(browser, served.base).post(f"/tables/{table_id}/accept")
    assert accepted.status_code == 200, accepted.text
    await pool.execute("INSERT INTO grants (scope, scope_id, user_id, role) VALUES ('table', $1, $2, 'referee')",
                       table_id, user_id(second_browser, served.base))

    referee_browser.get(f"{served.base}/play/")                        # his lobby leads him to the desk
    assert shown(referee_browser, "#to-desk", "href")[1].endswith("/referee/")
    browser.get(f"{served.base}/play/")
    wait(browser, lambda d: d.find_elements(By.ID, "me"))
    assert not browser.find_elements(By.ID, "to-desk")                 # hers does not: she referees nothing

    # Noura calls the referee: a misclick, in her words.
    browser.get(f"{served.base}/play/table.html?id={table_id}")
    wait(browser, lambda d: version_of(d) is not None)
    browser.find_element(By.ID, "call-referee").click()
    wait(browser, lambda d: d.find_element(By.ID, "call-dialog").is_displayed())
    Select(browser.find_element(By.ID, "call-reason")).select_by_value("misclick")
    type_into(browser, "call-note", "I pressed pass, I meant Sun")
    browser.find_element(By.ID, "call-send").click()
    status = shown(browser, "#calls li[data-call='1']", "data-status")
    assert status[1] == "open" and "a misclick" in status[0]
    assert browser.find_element(By.ID, "call-referee").get_attribute("disabled")      # one call at a time

    # The referee's queue: the call, with her name and note, the table's players by name.
    queue = f"{served.base}/referee/"
    row = "#queue tr[data-call]"
    looks = in_four_looks(referee_browser, queue, "referee-queue", lambda d: d.find_elements(By.CSS_SELECTOR, row),
                          lambda d: shown(d, row)[0])
    # The bots named in the page's language, the private table's pairs against each other.
    assert "Noura & Bot (normal) against Bot (normal) & Bot (normal)" in looks["en"]
    assert "آلي (عادي)" in looks["ar"] and "Bot (normal)" not in looks["ar"] and "طاولة خاصة" in looks["ar"]
    referee_browser.get(queue)
    text = shown(referee_browser, row)[0]
    assert "Noura" in text and "I pressed pass, I meant Sun" in text and "a misclick" in text
    referee_browser.find_element(By.CSS_SELECTOR, f"button[data-claim='{table_id}/1']").click()
    wait(referee_browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"{row}[data-status='claimed']"))
    assert "taken by Hakam" in shown(referee_browser, row)[0]

    # The second referee sees it taken: no claim button, and the API refuses his claim.
    second_browser.get(queue)
    assert "taken by Hakam" in shown(second_browser, f"{row}[data-status='claimed']")[0]
    assert not second_browser.find_elements(By.CSS_SELECTOR, "button[data-claim]")
    with as_browser(second_browser, served.base) as nasser:
        taken = nasser.post(f"/tables/{table_id}/calls/1/claim", json={"command_id": "late"})
    assert taken.status_code == 409 and taken.json()["rule"] == "call_taken"

    # The desk: the deal step by step, every hand.
    referee_browser.find_element(By.CSS_SELECTOR, f"{row} a.button").click()
    wait(referee_browser, lambda d: d.find_elements(By.ID, "step"))
    hands = referee_browser.find_elements(By.CSS_SELECTOR, "#board .seat")
    assert len(hands) == 4 and all(h.find_elements(By.CSS_SELECTOR, ".card") for h in hands)
    assert "Noura" in referee_browser.find_element(By.TAG_NAME, "h1").text
    referee_browser.find_element(By.ID, "step-first").click()
    assert shown(referee_browser, "#step", "data-step")[1] == "0"
    assert "The cards are dealt" in referee_browser.find_element(By.ID, "step-text").text
    referee_browser.find_element(By.ID, "step-last").click()
    assert "Call 1 taken by Hakam" in referee_browser.find_element(By.ID, "step-text").text
    referee_browser.find_element(By.ID, "step-prev").click()
    assert "Noura: Call the referee — a misclick" in referee_browser.find_element(By.ID, "step-text").text
    desk = referee_browser.current_url
    in_four_looks(referee_browser, desk, "referee-desk", lambda d: d.find_elements(By.ID, "ruling-form"))

    # He rules: annul and deal again, with his reason.
    referee_browser.get(desk)
    wait(referee_browser, lambda d: d.find_elements(By.ID, "ruling-form"))
    Select(referee_browser.find_element(By.ID, "ruling-kind")).select_by_value("replay_deal")
    type_into(referee_browser, "ruling-reason", "a misclick before any card: the deal is dealt again")
    referee_browser.find_element(By.ID, "ruling-send").click()
    wait(referee_browser, lambda d: d.find_elements(By.ID, "notice") or d.find_elements(By.ID, "refusal"))
    assert not referee_browser.find_elements(By.ID, "refusal"), referee_browser.find_element(By.ID, "refusal").text
    assert "a misclick before any card" in referee_browser.find_element(By.ID, "desk-rulings").text
    assert referee_browser.find_elements(By.CSS_SELECTOR, "#desk-receipts li")
    in_four_looks(referee_browser, desk, "referee-ruled", lambda d: d.find_elements(By.ID, "desk-rulings"))

    # Noura's page shows the ruling, pushed by the live stream (no reload).
    ruled = shown(browser, "#calls li[data-status='ruled'] .ruling", "data-ruling")
    assert ruled[1] == "replay_deal" and "a misclick before any card" in ruled[0]
    assert browser.find_element(By.CSS_SELECTOR, "#game").get_attribute("data-deal-no") == "2"
    in_four_looks(browser, f"{served.base}/play/table.html?id={table_id}", "play-referee-ruled",
                  lambda d: d.find_elements(By.CSS_SELECTOR, "#calls li[data-status='ruled']"))

    # The hand record carries the ruling and its receipt; the log verifies with it.
    with as_browser(browser, served.base) as me:
        record = me.get(f"/tables/{table_id}/deals/1/record").json()
    (ruling,) = record["rulings"]
    assert (ruling["ruling"], ruling["call"], ruling["receipt"]["kind"]) == ("replay_deal", 1, "ruling")
    report = await verify_log(pool, default_signer().public_key_hex, stream=f"table-{table_id}")
    assert report.ok and report.receipts >= 1, report
    assert same_origin(requested_urls(referee_browser), served.base) == []


async def test_the_desk_shows_the_engines_verdict_and_the_referee_upholds_one_accusation_and_rejects_another(
        served, browser, pool):
    sign_up(browser, served.base, "hakam", name="Hakam")
    people = [served.user(name) for name in ("Fahad", "Saad", "Majed", "Turki")]
    with as_browser(browser, served.base) as hakam:
        r = hakam.post("/tables", json={"seats": [uid for uid, _ in people], "mode": "recorded"})
        assert r.status_code == 201, r.text
        table_id = r.json()["table_id"]
    for _, headers in people:
        assert served.http.post(f"/tables/{table_id}/accept", headers=headers).status_code == 200
    ids = Ids()
    async with httpx.AsyncClient(base_url=served.base, timeout=30) as api:
        # Deal 1: a revoke, stored as made (a recorded table); an opponent asks the referee to rule on it.
        mine, _, other_card = await to_revoke_chance(api, table_id, people, random.Random(9), ids)
        seat, index = mine["seat"], action_count(mine["deal"])
        assert (await act(api, table_id, people[seat][1], {"type": "play", "card": other_card}, "revoke")).status_code == 200
        accuser = (seat + 1) % 4
        r = await api.post(f"/tables/{table_id}/calls", headers=people[accuser][1],
                           json={"command_id": "accuse-1", "reason": "qayd", "index": index, "note": "he had the suit"})
        assert r.status_code == 201, r.text

    def open_desk(call: int, deal: int) -> None:
        browser.get(f"{served.base}/referee/?table={table_id}&deal={deal}&call={call}")
        wait(browser, lambda d: d.find_elements(By.ID, f"verdict-{call}"))

    open_desk(1, 1)
    verdict = browser.find_element(By.ID, "verdict-1")
    assert "proven" in verdict.text and "revoke" in verdict.text and "follows the led suit" in verdict.text
    assert "ok" in verdict.get_attribute("class").split()
    assert browser.find_element(By.ID, "step").get_attribute("data-step") != "0"     # opened on the accused card
    assert "plays" in browser.find_element(By.ID, "step-text").text
    looks = in_four_looks(browser, browser.current_url, "referee-verdict", lambda d: d.find_elements(By.ID, "verdict-1"),
                          lambda d: shown(d, "#verdict-1")[0])
    # The verdict and the rules in the reader's language (the engine's own words kept apart, marked as his).
    assert "broke the rule at action" in looks["en"]
    assert "على كل لاعب أن يتبع لون الورقة الأولى إن استطاع (قاطع)" in looks["ar"] and "خالف" in looks["ar"]
    assert "Everyone follows the led suit" not in looks["ar"] and "offending team" not in looks["ar"]
    open_desk(1, 1)
    assert Select(browser.find_element(By.ID, "ruling-kind")).first_selected_option.get_attribute("value") == "uphold"
    type_into(browser, "ruling-reason", "the log shows the revoke")
    browser.find_element(By.ID, "ruling-send").click()
    wait(browser, lambda d: d.find_elements(By.ID, "notice") or d.find_elements(By.ID, "refusal"))
    assert not browser.find_elements(By.ID, "refusal"), browser.find_element(By.ID, "refusal").text
    first = served.http.get(f"/tables/{table_id}/deals", headers=people[0][1]).json()[0]
    assert first["game_points"][seat % 2] == 0 and first["game_points"][accuser % 2] > 0     # the penalty

    # Deal 2: an accusation of a legal lead: the engine finds it unfounded; the referee rejects it, no penalty.
    async with httpx.AsyncClient(base_url=served.base, timeout=30) as api:
        v = await play_until(api, table_id, people, random.Random(5), ids,
                             lambda v: v["deal_no"] == 2 and v["deal"]["phase"] == "playing" and len(v["deal"]["trick"]) == 1)
        leader = v["deal"]["trick"][0]["seat"]
        r = await api.post(f"/tables/{table_id}/calls", headers=people[(leader + 1) % 4][1],
                           json={"command_id": "accuse-2", "reason": "qayd", "index": action_count(v["deal"]) - 1})
        assert r.status_code == 201, r.text
    open_desk(2, 2)
    verdict = browser.find_element(By.ID, "verdict-2")
    assert "unfounded" in verdict.text and "bad" in verdict.get_attribute("class").split()
    Select(browser.find_element(By.ID, "ruling-kind")).select_by_value("reject")
    type_into(browser, "ruling-reason", "a legal lead; no penalty for asking")
    browser.find_element(By.ID, "ruling-send").click()
    wait(browser, lambda d: d.find_elements(By.ID, "notice") or d.find_elements(By.ID, "refusal"))
    assert not browser.find_elements(By.ID, "refusal"), browser.find_element(By.ID, "refusal").text
    after = served.http.get(f"/tables/{table_id}/view", headers=people[0][1]).json()
    assert after["deal_no"] == 2 and after["deal"]["phase"] == "playing"             # play goes on, nobody penalised
    assert [c["ruling"] for c in after["calls"]] == ["uphold", "reject"]


async def test_the_platform_referee_finds_a_championship_call_claims_steps_through_and_rules_it(
        served, browser, pool, database_url, db_schema):
    sign_up(browser, served.base, "hakam", name="Hakam")
    hakam_id = user_id(browser, served.base)
    assert not browser.find_elements(By.ID, "to-desk")                # he referees nothing yet
    # Whoever runs the platform makes him a referee, as the README says: `baloot account grant hakam referee`.
    granted = await asyncio.to_thread(main, ["account", "grant", "hakam", "referee",
                                             "--database-url", schema_url(database_url, db_schema)])
    assert granted == 0

    # A championship he has nothing to do with: four teams of two, round 1 being played.
    organiser = served.user("Organiser")[1]
    names = [("Fahad", "Saad"), ("Majed", "Turki"), ("Khalid", "Sultan"), ("Nawaf", "Yazeed")]
    people = {name: served.user(name) for team in names for name in team}
    r = served.http.post("/championships", headers=organiser, json={"command_id": "create", "name": "Najd Cup"})
    assert r.status_code == 201, r.text
    cid = r.json()["championship_id"]
    for k, team in enumerate(names):
        r = served.http.post(f"/championships/{cid}/teams", headers=organiser, json={
            "command_id": f"reg-{k}", "team_id": f"T{k + 1}", "players": [people[n][0] for n in team]})
        assert r.status_code == 201, r.text
    for path in ("registration/close", "draw", "rounds/1/start"):
        r = served.http.post(f"/championships/{cid}/{path}", headers=organiser, json={"command_id": path.replace("/", "-")})
        assert r.status_code == 200, r.text
    match = served.http.get(f"/championships/{cid}/matches", headers=organiser).json()[0]
    table = match["tables"][0]
    table_id, seats = table["table_id"], table["seats"]
    assert hakam_id not in seats
    name_of = {uid: name for name, (uid, _) in people.items()}
    team_of = {people[n][0]: " & ".join(team) for team in names for n in team}
    sides = f"{team_of[seats[0]]} against {team_of[seats[1]]}"           # e.g. "Fahad & Saad against Majed & Turki"
    caller = name_of[seats[1]]
    r = served.http.post(f"/tables/{table_id}/calls", headers=people[caller][1], json={
        "command_id": "call", "reason": "misclick", "note": "I meant to pass"})
    assert r.status_code == 201, r.text

    # A table where he plays: its call is not his to see.
    with as_browser(browser, served.base) as me:
        r = me.post("/tables", json={"seats": [hakam_id, "bot", "bot", "bot"], "bot_pace_seconds": 0})
        assert r.status_code == 201, r.text
        own = r.json()["table_id"]
        r = me.post(f"/tables/{own}/calls", json={"command_id": "own", "reason": "other", "note": "my own table"})
        assert r.status_code == 201, r.text
        assert [c["table_id"] for c in me.get("/referee/queue").json()] == [table_id]
        assert me.get(f"/tables/{own}/deals/1/desk").json()["rule"] == "not_referee"

    # His lobby leads him to the desk; the queue names the championship, the round and the teams.
    browser.get(f"{served.base}/play/")
    click(browser, "#to-desk")
    row = "#queue tr[data-call]"
    text, call_shown = shown(browser, row, "data-call")
    assert call_shown == f"{table_id}/1" and len(browser.find_elements(By.CSS_SELECTOR, row)) == 1
    assert "Najd Cup · Round 1" in text and sides in text and "I meant to pass" in text and caller in text
    assert "my own table" not in shown(browser, "#main")[0]
    queue = browser.current_url
    in_four_looks(browser, queue, "referee-platform-queue", lambda d: d.find_elements(By.CSS_SELECTOR, row))

    browser.get(queue)
    click(browser, f"button[data-claim='{table_id}/1']")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"{row}[data-status='claimed']"))
    assert "taken by Hakam" in shown(browser, row)[0]
    click(browser, f"{row} a.button")

    # The desk names the match too; he steps through the deal with every hand.
    title = shown(browser, "#desk-match")[0]
    assert "Najd Cup · Round 1" in title and sides in title
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .seat .hand:has(.card)")) == 4      # every hand
    click(browser, "#step-first")
    assert "The cards are dealt" in shown(browser, "#step-text")[0]
    click(browser, "#step-next")
    assert shown(browser, "#step", "data-step")[1] == "1"
    click(browser, "#step-last")
    assert "Call 1 taken by Hakam" in shown(browser, "#step-text")[0]
    desk = browser.current_url
    looks = in_four_looks(browser, desk, "referee-platform-desk", lambda d: d.find_elements(By.ID, "ruling-form"),
                          desk_layout)
    # On a phone, in Arabic too, the face-up card covers no card of a hand; every date is isolated.
    assert looks["ar"] == looks["en"] == {"faceup": True, "covered": [], "loose": []}, looks

    # He rules: rejected, with his reason. The slider stays on what he just did: the ruling's step, the last.
    browser.get(desk)
    wait(browser, lambda d: d.find_elements(By.ID, "ruling-form"))
    click(browser, "#step-last")
    before = int(shown(browser, "#step", "data-step")[1])
    Select(browser.find_element(By.ID, "ruling-kind")).select_by_value("reject")
    type_into(browser, "ruling-reason", "no card was played wrongly: play on")
    click(browser, "#ruling-send")
    wait(browser, lambda d: d.find_elements(By.ID, "notice") or d.find_elements(By.ID, "refusal"))
    assert not browser.find_elements(By.ID, "refusal"), shown(browser, "#refusal")[0]
    step_text, now = shown(browser, "#step-text")[0], int(shown(browser, "#step", "data-step")[1])
    assert "Ruled: rejected: nothing changes — " in step_text and "no card was played wrongly" in step_text
    assert now == before + 1 and f"Step {now + 1} of {now + 1}" in step_text
    assert shown(browser, "#step-range", "value")[1] == str(now)
    assert "no card was played wrongly" in shown(browser, "#desk-rulings")[0]
    # The step is in the address: a reload (or the link) shows the same one.
    desk = browser.current_url
    assert f"step={now + 1}" in desk
    browser.refresh()
    assert shown(browser, "#step", "data-step")[1] == str(now)
    looks = in_four_looks(browser, desk, "referee-platform-ruled", lambda d: d.find_elements(By.ID, "desk-rulings"),
                          desk_layout)
    assert looks["ar"] == looks["en"] == {"faceup": True, "covered": [], "loose": []}, looks

    # The players see the ruling; the call is ruled in the queue.
    view = served.http.get(f"/tables/{table_id}/view", headers=people[caller][1]).json()
    assert [(c["ruling"], c["status"]) for c in view["calls"]] == [("reject", "ruled")]


def click(driver, css: str) -> None:
    """Click ``css`` once it is on the page (found afresh if the page redrew it)."""
    steady(lambda: wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, css))[0].click())


def desk_layout(driver) -> dict:
    """What a referee's eye meets on the desk: whether the face-up card is shown, the cards of a hand it covers,
    and the dates, names, notes and reasons not isolated from the words around them (a Latin name or note next
    to an Arabic date reorders both): the text of each."""
    return driver.execute_script("""
        const box = e => e.getBoundingClientRect();
        const over = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        const faceup = document.getElementById('desk-faceup');
        const covered = faceup ? [...document.querySelectorAll('#board .seat .card')]
          .filter(c => over(box(faceup), box(c))).map(c => c.textContent) : [];
        const loose = [...document.querySelectorAll('#main time, #desk-calls blockquote, #desk-rulings li')]
          .filter(e => e.tagName === 'BLOCKQUOTE' ? e.dir !== 'auto' : e.tagName === 'TIME' ? !e.closest('bdi')
            : e.querySelectorAll(':scope > bdi').length < 3)     // a ruling: its reason, its referee, its time
          .map(e => e.textContent);
        return {faceup: Boolean(faceup), covered, loose};
    """)
