"""The audit page of a stored deal as a spectator auditing a disputed hand sees it: the hash chain, the
signed receipt and checkpoint, the seed, in English and Arabic, on a desktop and a phone; and the same page
once the log was rewritten behind the server with every hash recomputed. Every page passes the security
headers' Content-Security-Policy: the browser reports no violation and no script error."""

from __future__ import annotations

import json
import subprocess
import sys

import asyncpg
from selenium.webdriver.common.by import By

from services.anchor import publish_checkpoint
from services.anchor.keys import default_signer
from tests.anchor.test_tamper import rehash, settled, superuser
from tests.web.conftest import SCREENSHOTS, in_four_looks, requested_urls, same_origin
from tests.web.test_pages import bot_table, text_of, wait


def facts(driver) -> dict[str, tuple[str, str]]:
    """Each fact of the audit (its element id) as (shown text, class)."""
    return {k: tuple(v) for k, v in driver.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('dl.facts dd')]"
        ".map(e => [e.id, [e.innerText, e.className]]))").items()}


def ready(driver) -> bool:
    return bool(driver.find_elements(By.ID, "checkpoint"))


def problems_reported(driver) -> list[str]:
    """What the browser's console said at error level (CSP violations and script errors are errors)."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


async def test_the_audit_page_shows_the_anchor_and_names_a_rewritten_log(served, browser, pool, database_url,
                                                                        db_schema):
    table_id, referee = bot_table(served)
    served.start_workers()
    served.follow_to_end(table_id, referee)
    await settled(pool)
    assert await publish_checkpoint(pool, default_signer()) is not None
    url = f"/watch/audit.html?table={table_id}&deal=1"

    seen = in_four_looks(browser, served.base + url, "audit", ready, facts)
    assert seen["en"]["chain"] == ("intact", "ok")
    assert seen["en"]["receipt"] == ("matches the stored log", "ok")
    assert seen["en"]["checkpoint"] == ("included: its proof verifies", "ok")
    assert seen["en"]["seed-check"] == ("matches the commitment and the dealt hands", "ok")
    assert seen["ar"]["receipt"] == ("يطابق السجل المخزّن", "ok")
    assert seen["ar"]["checkpoint"] == ("مشمول: إثباته صحيح", "ok")
    assert seen["ar"]["seed-check"] == ("تطابق الالتزام والأوراق الموزعة", "ok")
    assert problems_reported(browser) == []

    # A superuser rewrites the deal's first action and recomputes every hash after it.
    deal = served.http.get(f"/tables/{table_id}/deals", headers=referee).json()[0]
    conn = await superuser(lambda: asyncpg.connect(database_url, server_settings={"search_path": db_schema}))
    try:
        stream, target = f"table-{table_id}", deal["first_version"] + 1
        data = json.loads(await conn.fetchval("SELECT data FROM events WHERE stream_id = $1 AND version = $2",
                                              stream, target))
        data["bid"] = "pass" if data["bid"] != "pass" else "sun"
        await conn.execute("UPDATE events SET data = $3::jsonb WHERE stream_id = $1 AND version = $2",
                           stream, target, json.dumps(data))
        await rehash(conn, stream, target)
    finally:
        await conn.close()
    seen = in_four_looks(browser, served.base + url, "audit-rewritten", ready, facts)
    assert seen["en"]["chain"] == ("intact", "ok")                    # the chain alone cannot tell
    assert seen["en"]["receipt"] == ("the log was rewritten after it was signed", "bad")
    assert seen["en"]["checkpoint"] == ("the log was rewritten after it was signed", "bad")
    assert seen["ar"]["receipt"] == ("أُعيدت كتابة السجل بعد توقيعه", "bad")
    # The words the server gave are kept for who wants them (hover).
    title = browser.find_element(By.ID, "checkpoint").get_attribute("title")
    assert "NOT in signed checkpoint #1" in title
    assert same_origin(requested_urls(browser), served.base) == []


def test_every_page_runs_under_the_content_security_policy(served, browser):
    table_id, referee = bot_table(served)
    served.start_workers()
    served.follow_to_end(table_id, referee)
    for page in ("", "table.html?id=" + table_id, f"audit.html?table={table_id}&deal=1", "daily.html",
                 "championship.html?id=none"):
        browser.get(f"{served.base}/watch/{page}")
        wait(browser, lambda d: d.execute_script("return document.getElementById('main')?.childElementCount ?? 1"))
        assert browser.execute_script("return document.documentElement.lang") == "en"
        reported = [p for p in problems_reported(browser) if "Content Security Policy" in p or "Refused" in p]
        assert reported == [], (page, reported)
    policy = served.http.get("/watch/").headers["content-security-policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert text_of(browser, "main") is not None


async def test_the_audit_page_names_the_players_breaks_the_score_down_checks_the_receipt_and_audits_a_file(
        served, browser, tmp_path):
    table_id, referee = bot_table(served)
    served.start_workers()
    served.follow_to_end(table_id, referee)
    # The first deal that was played (a deal all four passed has no card to tamper with below).
    n = next(d["deal_no"] for d in served.http.get(f"/tables/{table_id}/deals", headers=referee).json() if d["contract"])
    url = f"{served.base}/watch/audit.html?table={table_id}&deal={n}"
    checked = lambda d: "checking" not in (text_of(d, "receipt-browser") or "checking")
    in_four_looks(browser, url, "audit-names", checked)
    browser.get(url)
    wait(browser, checked)
    page = text_of(browser, "main")
    assert "seat " not in page and "Bot (normal)" in text_of(browser, "actions")      # who, not a seat number
    assert text_of(browser, "receipt-browser").startswith("verifies against the server's published key")
    record = served.http.get(f"/tables/{table_id}/deals/{n}/record", headers=referee).json()
    report = served.http.get(f"/tables/{table_id}/deals/{n}/audit", headers=referee).json()["report"]
    rows = browser.execute_script("return [...document.querySelectorAll('#breakdown tbody tr')].map(r => "
                                  "[...r.cells].map(c => c.innerText))")
    assert rows[-1][1:] == [str(p) for p in report["game_points"]] and rows[0][1:] == [str(p) for p in report["card_points"]]
    numbers = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#actions li.action .index")]
    assert numbers == [str(i) for i in range(len(record["actions"]))]               # each action numbered once
    # In Arabic the engine's lines are said in Arabic: who plays which card, who took each trick.
    browser.get(url + "&lang=ar")
    wait(browser, checked)
    plays = [i for i, a in enumerate(record["actions"]) if "play" in a]
    lines = {int(e.find_element(By.CSS_SELECTOR, ".index").text): e.text
             for e in browser.find_elements(By.CSS_SELECTOR, "#actions li.action")}
    assert all(" يلعب " in lines[i] and "plays" not in lines[i] for i in plays), [lines[i] for i in plays[:3]]
    tricks = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#actions li.consequence") if "trick" in e.text
              or "الأكلة" in e.text]
    assert len(tricks) == 8 and all(x.startswith("الأكلة") for x in tricks), tricks
    assert "آلي (عادي)" in text_of(browser, "actions")
    browser.find_element(By.ID, "actions").screenshot(str(SCREENSHOTS / "audit-actions-ar.png"))
    browser.get(url + "&lang=en")                   # the page remembers Arabic otherwise
    wait(browser, checked)

    # A record tampered with (a card its player never held), uploaded: the page names the first bad action,
    # as `baloot audit` does.
    index, action = next((i, a) for i, a in enumerate(record["actions"]) if "play" in a)
    other = next(a["play"] for a in record["actions"] if "play" in a and a["seat"] != action["seat"])   # not his
    tampered = {**record, "actions": [*record["actions"][:index], {**action, "play": other},
                                      *record["actions"][index + 1:]]}
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(tampered))
    cli = subprocess.run([sys.executable, "-m", "services.cli", "audit", str(path), "--json"], capture_output=True,
                         text=True, timeout=120)
    first = json.loads(cli.stdout)["violations"][0]
    browser.find_element(By.ID, "record-file").send_keys(str(path))
    wait(browser, lambda d: d.find_elements(By.ID, "uploaded"))
    assert browser.find_element(By.ID, "uploaded").get_attribute("data-valid") == "false"
    assert text_of(browser, "uploaded-valid") == f"Not valid: the first bad action is {first['index']} ({first['rule']})."
    assert first["index"] == index
    bad = browser.find_element(By.CSS_SELECTOR, "#uploaded-violations tr[data-index]")
    assert (bad.get_attribute("data-index"), bad.get_attribute("data-rule")) == (str(index), first["rule"])
    in_four_looks(browser, f"{served.base}/watch/audit.html", "audit-upload", lambda d: d.find_elements(By.ID, "record-file"))
