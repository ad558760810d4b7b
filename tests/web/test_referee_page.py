"""The referee's desk in the browser (/referee/): a player calls the referee from his table's page; the referee
finds the call in his queue, claims it (a second referee's page then shows it taken and cannot claim it),
steps through the deal with every hand, and rules "annul and replay" with a reason; the player's page shows
the ruling as it is made; the hand record carries the ruling with its signed receipt, and the log verifies
with it. The queue, the desk and the ruling in English and Arabic, desktop and phone (screenshots)."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from services.anchor.keys import default_signer
from services.anchor.verify import verify_log
from tests.web.conftest import in_four_looks, requested_urls, same_origin
from tests.web.people import as_browser, shown, sign_up, type_into, version_of, wait


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
    in_four_looks(referee_browser, queue, "referee-queue", lambda d: d.find_elements(By.CSS_SELECTOR, row))
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
