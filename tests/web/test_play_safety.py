"""A player's page under pressure: a click the rules refuse (forced through the DOM where the page would not
offer it) shows the server's rule and stores nothing; no other seat's card reaches the page or any response it
received, at any step, whatever the table's hands policy; a server restart mid-deal is ridden out without a
reload, and a second device on the same account sees the same table; wrong passwords, forged requests and
expired sessions are refused and change nothing."""

from __future__ import annotations

import json
import random
import re

import pytest
from selenium.webdriver.common.by import By

from domain.baloot.cards import card_name, cards_of
from domain.baloot.deal import step
from domain.baloot.handrecord import parse_record, record_commands, record_start
from domain.baloot.deal import INITIAL
from tests.web.people import (
    PASSWORD, as_browser, calm, click_offer, offered, shown, sign_in, sign_up, steady, type_into, version_of, wait,
)
from tests.web.test_play import at_a_table_with_three_bots, my_table, play_until, served_me

CARD = re.compile(rb'"([AKQJT987][SHDC])"')

HAND = "return [...document.querySelectorAll('#my-hand .hand-card')].map(c => c.dataset.card).sort()"


def view_of(driver, base: str, table_id: str) -> dict:
    with as_browser(driver, base) as me:
        r = me.get(f"/tables/{table_id}/view")
    assert r.status_code == 200, r.text
    return r.json()


def refusal(driver) -> tuple[str, str]:
    text, rule = shown(driver, "#refusal", "data-rule")
    return rule, text


def test_a_bid_out_of_turn_and_a_card_that_does_not_follow_suit_are_refused_in_place(served, browser):
    sign_up(browser, served.base, "noura", name="Noura")
    table_id = my_table(browser, served.base, {"seats": [served_me(browser, served), "bot", "bot", "bot"],
                                               "bot_pace_seconds": 0})
    browser.get(f"{served.base}/play/table.html?id={table_id}")
    wait(browser, lambda d: version_of(d) is not None)
    # The bots are not running yet: once she has spoken (if she speaks first) it is a bot's turn, and stays so.
    if any(o.get("value") == "pass" for o in offered(browser)):
        click_offer(browser, next(o for o in offered(browser) if o.get("value") == "pass"))
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#choices .choice.later"))
    before = view_of(browser, served.base, table_id)
    assert before["deal"]["turn"] != before["seat"]
    # The bidding bar is shown greyed; a cheat enables its Sun button and clicks it.
    sun = browser.find_element(By.CSS_SELECTOR, "#choices .choice.later[data-value='sun']")
    assert sun.get_attribute("disabled") is not None
    browser.execute_script("document.querySelector(\"#choices .choice.later[data-value='sun']\").disabled = false")
    steady(lambda: browser.find_element(By.CSS_SELECTOR, "#choices .choice.later[data-value='sun']").click())
    rule, text = refusal(browser)
    assert rule == "not_your_turn"
    # Said as people: the bot whose turn it is by where it sits, and her as "you"; no seat numbers.
    whose = {1: "Right opponent (bot)", 2: "Your partner (bot)", 3: "Left opponent (bot)"}[
        (before["deal"]["turn"] - before["seat"]) % 4]
    assert f"It is {whose}'s turn, not yours" in text and "seat" not in text
    assert view_of(browser, served.base, table_id)["version"] == before["version"]     # nothing stored

    # The bots play; when she must follow suit, she forces a card of another suit.
    served.start_workers()

    def must_follow(d) -> bool:
        led = d.find_elements(By.CSS_SELECTOR, "#trick .slot[data-led] .card")
        if not led or not d.find_elements(By.CSS_SELECTOR, "#my-hand .hand-card.legal:not([disabled])"):
            return False
        suit = led[0].get_attribute("data-card")[1]
        mine = [c.get_attribute("data-card") for c in d.find_elements(By.CSS_SELECTOR, "#my-hand .hand-card")]
        return any(c[1] == suit for c in mine) and any(c[1] != suit for c in mine)
    play_until(browser, lambda d: steady(lambda: must_follow(d)), random.Random(5))
    before = view_of(browser, served.base, table_id)
    led = before["deal"]["trick"][0]["card"]
    other = next(c for c in before["deal"]["hand"] if c[1] != led[1])
    browser.execute_script(f"document.querySelector(\"#my-hand .hand-card[data-card='{other}']\").disabled = false")
    steady(lambda: browser.find_element(By.CSS_SELECTOR, f"#my-hand .hand-card[data-card='{other}']").click())
    rule, text = refusal(browser)
    assert rule == "revoke" and "You did not follow the suit of" in text and "seat" not in text
    assert browser.find_element(By.CSS_SELECTOR, "#refusal bdi.card-list .card").get_attribute("data-card") == led
    after = view_of(browser, served.base, table_id)
    assert after["version"] == before["version"] and other in after["deal"]["hand"]
    # A legal card clears the refusal and is played.
    legal = browser.find_element(By.CSS_SELECTOR, "#my-hand .hand-card.legal:not([disabled])").get_attribute("data-card")
    click_offer(browser, {"kind": "card", "card": legal})
    wait(browser, lambda d: (version_of(d) or 0) > before["version"])
    assert not browser.find_elements(By.ID, "refusal")


def true_hands(record: dict) -> list[set[str]]:
    """Each seat's eight cards, from the deal's record (its deck and actions) once the deal is over."""
    parsed = parse_record(json.dumps(record))
    state, _ = step(INITIAL, record_start(parsed))
    for command in record_commands(parsed):
        if state.phase == "playing":
            break
        state, _ = step(state, command)
    return [{card_name(c) for c in cards_of(hand)} for hand in state.hands]


def shown_in(view: dict) -> set[str]:
    """The cards a player's view may show of other seats: played ones, the face-up card, declared projects."""
    d = view["deal"]
    shown = {p["card"] for p in d["trick"]} | {p["card"] for t in d["tricks"] for p in t["cards"]}
    shown |= {d["faceup"]} if d["faceup"] else set()
    shown |= {c for x in d["declarations"] for group in (x.get("cards") or []) for c in group}
    return shown


def sse_views(body: bytes) -> list[dict]:
    return [json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data: {\"")]


@pytest.mark.parametrize("policy", ["never", "after_deal", "always"])
def test_no_card_of_another_seat_reaches_the_player_at_any_step(served, browser, policy):
    served.start_workers()
    sign_up(browser, served.base, "noura", name="Noura")
    table_id = my_table(browser, served.base, {"seats": [served_me(browser, served), "bot", "bot", "bot"],
                                               "bot_pace_seconds": 0, "hands_policy": policy,
                                               "delay_seconds": 1800 if policy == "always" else 0})
    browser.get(f"{served.base}/play/table.html?id={table_id}")
    # Each time she may act: what the page shows, with the view she has at that moment.
    snapshots, rng = [], random.Random(13)

    def deal_over(d) -> bool:
        return d.execute_script("return Number(document.getElementById('game')?.dataset.dealNo ?? 0)") >= 2 \
            or bool(d.find_elements(By.CSS_SELECTOR, "#deal-result"))
    # Her first deal on the page, her cards in hand (it cannot end without her: she has no clock). Once, the loop
    # below found a deal over at its first look and took no snapshot; the page is read only from here.
    wait(browser, lambda d: version_of(d) is not None and d.find_elements(By.CSS_SELECTOR, "#my-hand .hand-card")
         and not deal_over(d))
    for _ in range(60):
        if deal_over(browser):
            break
        offers = wait(browser, lambda d: deal_over(d) or offered(d))
        if offers is True:
            break
        page = steady(lambda: (browser.page_source, [e.get_attribute("data-card") for e in
                                                     browser.find_elements(By.CSS_SELECTOR, "[data-card]")]))
        snapshots.append((view_of(browser, served.base, table_id), *page))
        before = version_of(browser)
        click_offer(browser, calm(offers, rng))
        wait(browser, lambda d: deal_over(d) or (version_of(d) or 0) > before or d.find_elements(By.ID, "refusal"))
        assert not browser.find_elements(By.ID, "refusal")
    assert deal_over(browser) and len(snapshots) >= 8
    with as_browser(browser, served.base) as me:
        record = me.get(f"/tables/{table_id}/deals/1/record").json()
    hands = true_hands(record)
    seat = snapshots[0][0]["seat"]
    others = set().union(*(h for s, h in enumerate(hands) if s != seat))
    assert len(others) == 24
    for view, source, in_dom in snapshots:
        if view["deal_no"] != 1:
            continue
        hidden = others - shown_in(view)
        assert set(view["deal"]["hand"]) <= hands[seat] and view["deal"]["hands"] is None
        assert set(in_dom) & hidden == set()
        assert [c for c in hidden if f'"{c}"' in source] == []
    # Every view the page received, from any route or the stream, before the deal's end.
    bodies = served.recorder.api_bodies()
    received = [v for p, b in bodies if p.endswith("/live") for v in sse_views(b)]
    received += [json.loads(b) for p, b in bodies if p.endswith("/view")]
    received += [json.loads(b)["view"] for p, b in bodies if p.endswith("/commands") and b.startswith(b"{")]
    during = [v for v in received if v.get("deal_no") == 1 and v["deal"]
              and v["deal"]["phase"] in ("bidding", "doubling", "playing")]
    assert len(during) >= 20
    for view in during:
        hidden = others - shown_in(view)
        found = {m.decode() for m in CARD.findall(json.dumps(view).encode())}
        assert found & hidden == set(), (policy, view["version"])
        assert view["deal"]["hands"] is None


def test_a_server_restart_mid_deal_is_ridden_out_and_a_second_device_sees_the_same_table(served, browser,
                                                                                          more_browsers):
    served.start_workers()
    table_id, url = at_a_table_with_three_bots(browser, served)
    playing = lambda d: d.find_elements(By.CSS_SELECTOR, "#my-hand .hand-card.legal:not([disabled])")
    play_until(browser, playing, random.Random(17))
    browser.execute_script("window.notReloaded = true")
    at = version_of(browser)

    served.stop()                                              # the server goes away mid-deal
    wait(browser, lambda d: "reconnecting" in d.find_element(By.ID, "live-state").get_attribute("class"))
    served.start()
    # Her phone signs in to the same account and plays her card there.
    phone = more_browsers()
    sign_in(phone, served.base, "noura")
    wait(phone, lambda d: d.find_elements(By.ID, "me"))
    phone.get(url)
    wait(phone, lambda d: version_of(d) == at and playing(d))
    # Both screens hold the same hand (read whole in the page: the first may be drawing its view again as its
    # stream comes back).
    wait(browser, lambda d: d.execute_script(HAND) == phone.execute_script(HAND))
    card = phone.find_element(By.CSS_SELECTOR, "#my-hand .hand-card.legal:not([disabled])").get_attribute("data-card")
    click_offer(phone, {"kind": "card", "card": card})
    wait(phone, lambda d: (version_of(d) or 0) > at)
    # The first page caught up by itself (the stream resumed from its last version), without a reload.
    latest = view_of(phone, served.base, table_id)["version"]
    wait(browser, lambda d: (version_of(d) or 0) >= latest
         and "live" == d.find_element(By.ID, "live-state").get_attribute("class").split()[-1])
    assert browser.execute_script("return window.notReloaded") is True
    assert card not in browser.execute_script(HAND)


async def test_wrong_password_forged_request_and_expired_session_are_refused_in_the_browser(served, browser, pool):
    sign_up(browser, served.base, "noura", name="Noura")
    browser.delete_all_cookies()
    sign_in(browser, served.base, "noura", "not her password")
    text, role = shown(browser, "#sign-in .error", "role")
    assert role == "alert" and "no account has this login and password" in text
    assert not browser.find_elements(By.ID, "me")
    assert "baloot_session" not in {c["name"] for c in browser.get_cookies()}
    sign_in(browser, served.base, "noura")
    wait(browser, lambda d: d.find_elements(By.ID, "me"))

    # A script of another origin's kind: her cookie goes with it, the CSRF token does not.
    tables = await pool.fetchval("SELECT count(*) FROM events")
    status, body = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/tables', {method: 'POST', headers: {'content-type': 'application/json'},
                          body: JSON.stringify({seats: ['bot', 'bot', 'bot', 'bot']})})
          .then(async r => done([r.status, await r.json()]));""")
    assert status == 403 and body["rule"] == "csrf_token"
    assert await pool.fetchval("SELECT count(*) FROM events") == tables

    # Her session expires: her table's page sends her to sign in, then back to the table.
    table_id = my_table(browser, served.base, {"seats": [served_me(browser, served), "bot", "bot", "bot"]})
    # (The server rechecks a session it knows every 5 min; its restart stands for the time that passes.)
    await pool.execute("UPDATE tokens SET expires_at = now() - interval '1 second' WHERE via = 'session'")
    served.stop()
    served.start()
    browser.get(f"{served.base}/play/table.html?id={table_id}")
    wait(browser, lambda d: d.find_elements(By.ID, "sign-in"))
    assert not browser.find_elements(By.ID, "me") and "/play/" in browser.current_url
    type_into(browser, "login", "noura")
    type_into(browser, "password", PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "#sign-in button[type=submit]").click()
    wait(browser, lambda d: version_of(d) is not None)
    assert f"id={table_id}" in browser.current_url
