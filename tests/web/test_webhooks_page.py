"""The webhooks panel of the organiser console in a real browser: a private address is refused in place and
nothing stored; a receiver's address is added and its secret shown once; the deliveries are read with their
state and answer and one is sent again; an endpoint the workers disabled after its failures says so and is
enabled again; the panel in English and Arabic, on a desktop and a phone."""

from __future__ import annotations

import random

from selenium.webdriver.common.by import By

from services.webhooks.sender import Retry, WebhookSender
from tests.web.conftest import in_four_looks, screenshot
from tests.web.people import as_browser, shown, sign_up, wait
from tests.web.test_organise import click, grant_organiser, me
from tests.webhooks.conftest import Clock, queue
from tests.webhooks.receiver import Receiver


def add_hook(driver, url: str, note: str, only: tuple[str, ...] | None = None) -> None:
    form = wait(driver, lambda d: d.find_elements(By.ID, "new-hook"))[0]
    for name, value in (("hook_url", url), ("hook_note", note)):
        box = form.find_element(By.ID, name)
        box.clear()
        box.send_keys(value)
    if only is not None:
        for box in form.find_elements(By.CSS_SELECTOR, "input[type=checkbox]"):
            if (box.get_attribute("name")[len("kind-"):] in only) != box.is_selected():
                box.click()
    form.find_element(By.ID, "add-hook").click()


async def test_an_organiser_adds_reads_and_mends_webhooks_from_the_console(served, browser, pool, tmp_path,
                                                                           monkeypatch, request):
    monkeypatch.setenv("BALOOT_WEBHOOK_ALLOW", "127.0.0.1/32")       # the operator allows the test's receivers
    good, bad = Receiver(tmp_path / "good"), Receiver(tmp_path / "bad")
    request.addfinalizer(good.kill)                 # (it outlived the test run before)
    (tmp_path / "good").mkdir()
    (tmp_path / "bad").mkdir()
    sign_up(browser, served.base, "maryam", name="Maryam")
    await grant_organiser(pool, me(browser, served.base))
    with as_browser(browser, served.base) as http:
        cid = http.post("/championships", json={"command_id": "c", "name": "Club Night"}).json()["championship_id"]
        r = http.post(f"/championships/{cid}/teams/import?command_id=i", headers={"content-type": "text/csv"},
                      content=b"team,player_1,player_2\nFalcons,bot,bot\nPearls,bot,bot\n")
        assert r.status_code == 201, r.text
    page = f"{served.base}/organise/?id={cid}"
    browser.get(page)

    add_hook(browser, "http://10.0.0.5/hook", "office")                 # inside the network: refused in place
    text, rule = shown(browser, "#refusal", "data-rule")
    assert rule == "webhook_target_refused" and "10.0.0.5" in text
    assert await pool.fetchval("SELECT count(*) FROM webhook_endpoints") == 0

    add_hook(browser, good.url, "club Discord")
    good.secret = shown(browser, "#hook-secret code")[0]
    assert good.secret.startswith("whsec_")
    add_hook(browser, bad.url, "old scoreboard", only=("registration.closed", "draw.made"))
    bad.secret = wait(browser, lambda d: [x.text for x in d.find_elements(By.CSS_SELECTOR, "#hook-secret code")
                                          if x.text != good.secret])[0]
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#endpoints li[data-endpoint]")) == 2)

    with as_browser(browser, served.base) as http:                      # the championship moves on
        for path in ("registration/close", "draw"):
            assert http.post(f"/championships/{cid}/{path}", json={"command_id": path.replace("/", "-")}).status_code == 200
    good.start()
    bad.start("--fail")
    await queue(pool)                                   # what the workers' outbox and sender do, here in the test
    clock = Clock()
    sender = WebhookSender(pool, Retry(base=1.0, disable_after=3), clock=clock, rng=random.Random(3))
    try:
        for _ in range(10):
            await sender.run_once()
            if sender.next_due is None:
                break
            clock.now = max(clock.now, sender.next_due)
    finally:
        await sender.close()
        bad.kill()
    assert [e["type"] for e in good.fresh()] == ["registration.closed", "draw.made"]

    browser.get(page)
    bad_row = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#endpoints li[data-enabled='false']"))[0]
    assert "3" in bad_row.text and "old scoreboard" in bad_row.text
    good_row = "#endpoints li[data-enabled='true']"
    click(browser, f"{good_row} button.show-deliveries")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, f"{good_row} tr[data-status='delivered']")) == 2)
    in_panel = lambda d: d.find_elements(By.CSS_SELECTOR, "#endpoints li") and d.execute_script(  # noqa: E731
        "document.getElementById('webhooks').scrollIntoView(); return true")
    browser.execute_script("document.getElementById('webhooks').scrollIntoView()")
    screenshot(browser, "organise-webhooks-deliveries")
    click(browser, f"{good_row} tr[data-status='delivered'] button.redeliver")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"{good_row} tr[data-status='pending']"))

    click(browser, "#endpoints li[data-enabled='false'] button.enable-hook")
    wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#endpoints li[data-enabled='true']")) == 2)
    with as_browser(browser, served.base) as http:
        assert all(e["enabled"] and e["failures"] == 0 for e in http.get("/webhooks").json())

    in_four_looks(browser, page, "organise-webhooks", in_panel)
