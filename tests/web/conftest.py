"""The pages under /watch/ in a real browser: Debian's headless Chromium driven by Selenium, against the app
served by uvicorn in a thread on this test's PostgreSQL schema, with the in-process workers (bots) started
when a test says so.

Every response the server sends to the browser is recorded by an ASGI wrapper around the app (streamed
bodies chunk by chunk), so a test can look at everything the page received; Chrome's own network log says
that the page asked nothing of any other server.
"""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from urllib.parse import urlsplit

import argon2
import httpx
import pytest
import uvicorn
from selenium.webdriver.common.by import By

from services.api.app import create_app
from services.db import schema_url
from tests.web.people import SCREENSHOTS, wait
from tests.workers.helpers import InProcess

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
HUGE = ("second", 100_000)
CHEAP = argon2.PasswordHasher.from_parameters(argon2.profiles.CHEAPEST)     # accounts made by the tests


def pytest_configure(config):
    # The database fixtures: one plugin for the whole run, loaded only where tests need a database.
    config.pluginmanager.import_plugin("tests.db_fixtures")


class Recorder:
    """ASGI middleware: keeps (method, path, status, body) of each HTTP response sent to a browser."""

    def __init__(self, app):
        self.app = app
        self.responses: list[dict] = []
        self._lock = threading.Lock()

    async def __call__(self, scope, receive, send):
        agent = dict(scope.get("headers") or ()).get(b"user-agent", b"")
        if scope["type"] != "http" or b"Chrome" not in agent:
            return await self.app(scope, receive, send)
        entry = {"method": scope["method"], "path": scope["path"], "query": scope["query_string"].decode(),
                 "status": None, "body": bytearray()}
        with self._lock:
            self.responses.append(entry)

        async def recording_send(message):
            if message["type"] == "http.response.start":
                entry["status"] = message["status"]
            elif message["type"] == "http.response.body":
                entry["body"] += message.get("body", b"")
            await send(message)

        await self.app(scope, receive, recording_send)

    def api_bodies(self) -> list[tuple[str, bytes]]:
        """(path, body) of every response that was not a static file of the pages."""
        with self._lock:
            return [(e["path"], bytes(e["body"])) for e in self.responses if not e["path"].startswith("/watch")]


class Server:
    """uvicorn serving ``app`` on ``port`` (0: any free one) in a thread, until ``stop()``."""

    def __init__(self, app, port: int = 0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)      # the same port again after a stop
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning",
                                                    timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        self.sock.close()
        assert not self.thread.is_alive(), "the server did not stop"


class Served:
    def __init__(self, base: str, app, recorder: Recorder, workers: InProcess, server: Server, make_app):
        self.base, self.app, self.recorder, self.workers = base, app, recorder, workers
        self.server, self._make_app = server, make_app
        self.http = httpx.Client(base_url=base, timeout=30)

    def stop(self) -> None:
        """The server process goes away (its connections with it); the database and the workers stay."""
        self.server.stop()

    def start(self) -> None:
        """A new server on the same address, as after a restart: a new app, nothing kept in memory."""
        self.app = self._make_app()
        self.recorder.app = self.app
        self.server = Server(self.recorder, self.server.port)

    def user(self, name: str, kind: str = "human") -> tuple[str, dict]:
        r = self.http.post("/users", json={"name": name, "kind": kind})
        assert r.status_code == 201, r.text
        return r.json()["user_id"], {"Authorization": f"Bearer {r.json()['token']}"}

    def start_workers(self, schedules: bool = False) -> None:
        """The workers: bots, clocks; with ``schedules``, the championships' schedule ticks too."""
        if schedules:
            self.workers.run_schedules()
        self.workers.start()

    def follow_to_end(self, table_id: str, headers: dict) -> int:
        """Read the table's live stream until its `end` event (the game is over); returns the last version."""
        last = 0
        with self.http.stream("GET", f"/tables/{table_id}/live", headers=headers, timeout=120) as r:
            assert r.status_code == 200
            for line in r.iter_lines():
                if line.startswith("id: "):
                    last = int(line[4:])
                if line == "event: end":
                    return last
        raise AssertionError("the stream closed before the game ended")


@pytest.fixture
def daily_options() -> dict | None:
    """The daily deal's options of the served app (a test module overrides it: a clock of its own)."""
    return None


@pytest.fixture
def served(database_url, db_schema, daily_options):
    url = schema_url(database_url, db_schema)
    workers = InProcess(url, threads=2)

    def make_app():
        return create_app(url, rate_limit=HUGE, signup_limit=HUGE, work=workers.workers, daily=daily_options,
                          password_hasher=CHEAP)
    app = make_app()
    recorder = Recorder(app)
    server = Server(recorder)
    s = Served(f"http://127.0.0.1:{server.port}", app, recorder, workers, server, make_app)
    try:
        yield s
    finally:
        s.http.close()
        workers.stop()
        s.server.stop()


@pytest.fixture(scope="session")
def chromium_paths():
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        pytest.fail(f"the browser tests need Debian's chromium and chromium-driver ({', '.join(missing)} missing): "
                    "apt-get install -y chromium chromium-driver")
    return CHROMIUM, CHROMEDRIVER


def start_chromium(chromium_paths):
    """Headless Chromium (Debian's, never downloaded) with its performance (network) log on: a browser of its
    own (its own cookies and storage)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(chromium_paths[0])
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1200,900", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(chromium_paths[1])), options=options)
    driver.set_page_load_timeout(30)
    return driver


WRONG_WORDS = ("[object", "null", "undefined", "NaN")


def shows_no_wrong_words(driver, where: str) -> None:
    """The page in ``driver`` shows none of what a bug prints in place of a value (``null``, ``undefined``,
    ``[object …]``, ``NaN``)."""
    try:
        text = driver.find_element(By.TAG_NAME, "body").text
    except Exception:            # no page (a closed window, an image): nothing shown to check
        return
    shown = [w for w in WRONG_WORDS if w in text]
    assert not shown, f"{where} shows {shown}: {text[:400]}"


@pytest.fixture
def browser(chromium_paths, request):
    driver = start_chromium(chromium_paths)
    try:
        yield driver
        shows_no_wrong_words(driver, f"the last page of {request.node.name} ({driver.current_url})")
    finally:
        driver.quit()


@pytest.fixture
def more_browsers(chromium_paths, request):
    """Makes more browsers (each a person on a device of his own), all closed after the test."""
    drivers = []

    def make():
        drivers.append(start_chromium(chromium_paths))
        return drivers[-1]

    try:
        yield make
        for k, driver in enumerate(drivers):
            shows_no_wrong_words(driver, f"the last page of browser {k + 1} in {request.node.name}")
    finally:
        for driver in drivers:
            driver.quit()


def screenshot(driver, name: str) -> Path:
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    assert driver.save_screenshot(str(path)), f"no screenshot saved at {path}"
    return path


PHONE, DESKTOP = (390, 844), (1200, 900)


def in_four_looks(driver, url: str, name: str, ready, read=None) -> dict:
    """The page at ``url`` in English and Arabic, on a desktop and a phone, as its people see it: each drawn
    in its direction, no wider than the screen, with no ``null``, ``undefined`` or ``[object`` shown, and a
    screenshot of each (``name``, ``name-phone``, ``name-ar``, ``name-ar-phone``). ``ready(driver)``: the page
    has drawn; ``read(driver)``, if given, is kept per language (from the phone)."""
    seen = {}
    joiner = "&" if "?" in url else "?"
    try:
        for lang in ("en", "ar"):
            for size, suffix in ((DESKTOP, ""), (PHONE, "-phone")):
                driver.set_window_size(*size)
                driver.get(f"{url}{joiner}lang={lang}")
                wait(driver, ready)
                assert driver.execute_script("return document.documentElement.dir") == (
                    "rtl" if lang == "ar" else "ltr")
                wide = driver.execute_script(
                    "const w = document.documentElement.clientWidth; if (document.documentElement.scrollWidth <= w) "
                    "return null; return [w, [...document.querySelectorAll('body *')].filter(e => "
                    "e.getBoundingClientRect().right > w + 0.5 || e.getBoundingClientRect().left < -0.5).slice(0, 5)"
                    ".map(e => `${e.tagName}#${e.id}.${e.className} ${Math.round(e.getBoundingClientRect().left)}..`"
                    " + Math.round(e.getBoundingClientRect().right))]")
                assert wide is None, f"{name} ({lang}) is wider than a {wide[0]} px screen: {wide[1]}"
                missing = driver.execute_script("return [...(globalThis.missingWords ?? [])]")
                assert not missing, f"{name} ({lang}) asks for words no language has: {missing}"
                shows_no_wrong_words(driver, f"{name} ({lang})")
                screenshot(driver, f"{name}{'-ar' if lang == 'ar' else ''}{suffix}")
                if read is not None:
                    seen[lang] = read(driver)
    finally:
        driver.set_window_size(*DESKTOP)
        # The pages remember a language asked for (?lang=): the browser goes on in the one it had before.
        driver.execute_script("localStorage.removeItem('baloot.watch.lang')")
    return seen


def requested_urls(driver) -> list[str]:
    """Every URL the page requested, from Chrome's performance log (emptied by reading it)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def same_origin(urls: list[str], base: str) -> list[str]:
    """The URLs not served by ``base`` (should be none)."""
    origin = urlsplit(base).netloc
    return [u for u in urls if urlsplit(u).netloc != origin and not u.startswith(("data:", "blob:"))]
