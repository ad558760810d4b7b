"""The API reference at /schema, as an integrator opens it: Swagger UI on the OpenAPI document, every script
and style from this server (no CDN is reachable), under the pages' Content-Security-Policy."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from tests.web.conftest import requested_urls, same_origin, screenshot
from tests.web.test_audit_page import problems_reported
from tests.web.test_pages import wait


def test_the_api_reference_is_rendered_offline(served, browser):
    for path in ("/schema", "/schema/swagger"):
        browser.get(f"{served.base}{path}")
        wait(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock")) > 50)
        assert "baloot-arena" in browser.find_element(By.CSS_SELECTOR, ".info .title").text
        ids = browser.execute_script("return [...document.querySelectorAll('.opblock-summary-path')]"
                                     ".map(e => e.innerText)")
        assert "/tables/{table_id}/calls" in " ".join(ids) and "/referee/queue" in ids
        assert same_origin(requested_urls(browser), served.base) == []
        assert problems_reported(browser) == []
    screenshot(browser, "api-reference")
    assert served.http.get("/schema/openapi.json").json()["info"]["title"] == "baloot-arena"
