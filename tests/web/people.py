"""People in browsers for the play pages' tests: sign up through the page, act as the signed-in browser over
HTTP (its own cookies), and play by clicking what the page offers."""

from __future__ import annotations

import random
from pathlib import Path

import httpx
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

PASSWORD = "a long secret"
WAIT = 60
SCREENSHOTS = Path(__file__).parent / "screenshots"


def steady(action, tries: int = 5):
    """``action()`` again when the page redrew the element it found under it (a live page redraws on every
    event): the element is looked up afresh each time."""
    for attempt in range(tries):
        try:
            return action()
        except StaleElementReferenceException:
            if attempt == tries - 1:
                raise


def read(driver, css: str, attribute: str | None = None) -> str | None:
    """The text of the element matching ``css`` (or one attribute of it), read in one script: a live page may
    redraw the element between a lookup and a read, which a script cannot see. None when nothing matches."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]);"
        "return e === null ? null : (arguments[1] === null ? e.innerText : e.getAttribute(arguments[1]));",
        css, attribute)


def wait(driver, condition, timeout: float = WAIT):
    """Until ``condition(driver)``, asked again when the page redrew what it was reading. When it never
    comes, the failure says what the page showed (its address, its text) and keeps a screenshot of it."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05,
                             ignored_exceptions=[StaleElementReferenceException]).until(lambda d: condition(d))
    except TimeoutException:
        SCREENSHOTS.mkdir(exist_ok=True)
        shot = SCREENSHOTS / "timed-out.png"
        driver.save_screenshot(str(shot))
        text = driver.execute_script("return document.body ? document.body.innerText : ''") or ""
        raise AssertionError(f"the page did not get there in {timeout} s; it shows {driver.current_url} "
                             f"(screenshot {shot}):\n{text[:1500]}") from None


def shown(driver, css: str, *attributes: str) -> tuple:
    """The text of the element ``css`` (and these attributes of it) once it is on the page, read in one go:
    a redraw between finding it and reading it means reading it again."""
    def read(d):
        found = d.find_elements(By.CSS_SELECTOR, css)
        if not found:
            return False
        try:
            return (found[0].text, *(found[0].get_attribute(a) for a in attributes))
        except StaleElementReferenceException:
            return False
    return wait(driver, read)


def type_into(driver, element_id: str, text: str) -> None:
    box = driver.find_element(By.ID, element_id)
    box.clear()
    box.send_keys(text)


def sign_up(driver, base: str, login: str, password: str = PASSWORD, name: str | None = None) -> None:
    """Create an account on the sign-in page, as a newcomer does; the lobby is shown after."""
    driver.get(f"{base}/play/")
    wait(driver, lambda d: d.find_elements(By.ID, "sign-up"))
    type_into(driver, "new-login", login)
    if name:
        type_into(driver, "display-name", name)
    type_into(driver, "new-password", password)
    type_into(driver, "new-password-2", password)
    driver.find_element(By.CSS_SELECTOR, "#sign-up button[type=submit]").click()
    wait(driver, lambda d: d.find_elements(By.ID, "me"))


def sign_in(driver, base: str, login: str, password: str = PASSWORD) -> None:
    driver.get(f"{base}/play/")
    wait(driver, lambda d: d.find_elements(By.ID, "sign-in"))
    type_into(driver, "login", login)
    type_into(driver, "password", password)
    driver.find_element(By.CSS_SELECTOR, "#sign-in button[type=submit]").click()


def as_browser(driver, base: str) -> httpx.Client:
    """An HTTP client that is this browser: its cookies (session, CSRF) and the CSRF header its pages send."""
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    return httpx.Client(base_url=base, cookies=cookies, timeout=30,
                        headers={"X-CSRF-Token": cookies.get("baloot_csrf", "")})


def version_of(driver) -> int | None:
    v = driver.execute_script(
        "return document.querySelector('#game[data-version], #play-balut[data-version]')?.dataset.version ?? null")
    return None if v is None else int(v)


def offered(driver) -> list[dict]:
    """What the page lets this player do now: enabled hand cards, the enabled choices of his turn (bids,
    doubling calls, declarations: not the Sawa claim nor the Qayd call, which a recorded table offers all
    along, his turn or not), the throw and the rows."""
    return driver.execute_script("""
        const out = [];
        for (const b of document.querySelectorAll('#my-hand .hand-card:not([disabled])'))
          out.push({kind: 'card', card: b.dataset.card});
        for (const b of document.querySelectorAll('#choices .choice[data-action]:not([disabled])'))
          out.push({kind: 'choice', action: b.dataset.action, value: b.dataset.value, suit: b.dataset.suit, id: b.id});
        const t = document.getElementById('throw');
        if (t && !t.disabled) out.push({kind: 'throw'});
        for (const b of document.querySelectorAll('#my-sheet button.write:not([disabled])'))
          out.push({kind: 'write', category: b.dataset.category});
        return out;""")


def click_offer(driver, offer: dict) -> None:
    css = {"card": f"#my-hand .hand-card[data-card='{offer.get('card')}']",
           "throw": "#throw",
           "write": f"#my-sheet button.write[data-category='{offer.get('category')}']"}.get(offer["kind"])
    if css is None:
        css = (f"#choices .choice[data-action='{offer['action']}'][data-value='{offer['value']}']"
               f"[data-suit='{offer['suit']}']")
    steady(lambda: driver.find_element(By.CSS_SELECTOR, css).click())


def calm(offers: list[dict], rng: random.Random) -> dict:
    """What a steady player clicks, in either game (``steady_cards`` or ``steady_dice``)."""
    if any(o["kind"] in ("throw", "write") for o in offers):
        return steady_dice(offers, rng)
    return steady_cards(offers, rng)


def steady_dice(offers: list[dict], rng: random.Random) -> dict:
    """Throw again half the time while a throw is left, else write one of the open rows at random."""
    rows = [o for o in offers if o["kind"] == "write"]
    throw = [o for o in offers if o["kind"] == "throw"]
    if throw and (not rows or rng.random() < 0.5):
        return throw[0]
    return rng.choice(rows)


def steady_cards(offers: list[dict], rng: random.Random) -> dict:
    """A choice that keeps a deal going to its end: bid Sun or Hokum (someone buys), never double, no Sawa,
    no Qayd; a card at random among the legal ones."""
    cards = [o for o in offers if o["kind"] == "card"]
    if cards:
        return rng.choice(cards)
    for wanted in ("sun", "hokum", "confirm", "pass"):
        found = [o for o in offers if o["kind"] == "choice" and o["action"] in ("bid", "double")
                 and o["value"] == wanted]
        if found:
            return found[0]
    return offers[0]                # his turn offers nothing else (a declaration to make, Kawesh): the first
