"""`baloot demo` as a newcomer meets it in the browser: the table made for him waits in his lobby with nothing
running (however long he takes to come), starts when he accepts it there, and greets him with his turn and a
full clock; the referee the demo prints finds a player's call waiting at his desk."""

from __future__ import annotations

import asyncio
import json

from selenium.webdriver.common.by import By

from services.cli import main
from services.db import schema_url
from tests.web.people import as_browser, shown, sign_in, steady, wait


async def run_demo(capsys, url: str) -> dict:
    code = await asyncio.to_thread(main, ["demo", "--json", "--database-url", url, "--pace", "0",
                                          "--teams", "2", "--password", "a demo secret"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


async def test_the_demo_table_waits_in_the_lobby_and_the_referee_finds_a_call(served, browser, more_browsers,
                                                                           database_url, db_schema, capsys):
    doc = await run_demo(capsys, schema_url(database_url, db_schema))
    served.start_workers()
    table_id, call = doc["table"]["table_id"], doc["call"]

    # The newcomer signs in with the printed login: the table is an invitation in his lobby, from the demo's
    # referee; the workers have had the table all along and nothing ran at it (no deal, no clock).
    sign_in(browser, served.base, doc["player"]["login"], "a demo secret")
    invitation = f".invitation[data-table='{table_id}']"
    assert "Demo referee" in shown(browser, invitation)[0]
    with as_browser(browser, served.base) as me:
        assert me.get(f"/tables/{table_id}/view").json().get("deal") is None
    # He accepts it and goes to the table from his lobby: the game starts now, his clock full when his turn
    # comes (two minutes: 1:5x or 2:00, never the seconds of an old table).
    browser.find_element(By.CSS_SELECTOR, f"{invitation} button.accept").click()
    to_table = f"a[href='/play/table.html?id={table_id}']"
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, to_table))
    browser.find_element(By.CSS_SELECTOR, to_table).click()
    clock = shown(browser, "[data-clock-seat='0']")[0]
    assert clock in ("2:00",) or clock.startswith("1:5"), clock
    with as_browser(browser, served.base) as me:
        view = me.get(f"/tables/{table_id}/view").json()
    assert view["seat"] == 0 and view["deal_no"] == 1 and view["clock_seat"] == 0

    # The referee signs in: the desk shows the caller's call, his words and the reason.
    referee = more_browsers()
    sign_in(referee, served.base, doc["referee"]["login"], "a demo secret")
    wait(referee, lambda d: d.find_elements(By.ID, "to-desk"))
    steady(lambda: referee.find_element(By.ID, "to-desk").click())        # the page may redraw under it
    row = f"#queue tr[data-call='{call['table_id']}/{call['call']}']"
    text = shown(referee, row)[0]
    assert "I have to leave now" in text and "Demo caller" in text
    assert referee.find_element(By.CSS_SELECTOR, f"button[data-claim='{call['table_id']}/{call['call']}']")
