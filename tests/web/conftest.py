"""Fixtures for the web tests: a real uvicorn on a loopback port, and Debian's Chromium driven by
Playwright. Without Chromium the browser tests skip — except under CI=true, where they fail."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from cogleague.web.replay_server import bind

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
SCREENSHOT_DIR_ENV = "COGLEAGUE_SCREENSHOT_DIR"
"""Set to a folder (e.g. docs/screenshots) to keep the screenshots the browser tests take."""
STARTUP_TIMEOUT_S = 20.0
OPERATOR_KEY = "op-" + "k" * 40
"""The operator key of the table servers the tests start."""


class LiveServer:
    """An ASGI app served by uvicorn on 127.0.0.1 in a background thread."""

    def __init__(self, app: Any, sock: Any = None) -> None:
        """`sock`: a socket already bound (a server back on the port of one that stopped)."""
        self.sock = sock if sock is not None else bind("127.0.0.1", 0)
        host, port = self.sock.getsockname()[:2]
        self.url = f"http://{host}:{port}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                                    ws_ping_interval=None))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one test module: Playwright's sync API keeps an event loop running in
    this thread while it is open, which other modules' asyncio tests must not inherit."""
    if not CHROMIUM.exists():
        reason = f"Debian's Chromium ({CHROMIUM}) is not installed: apt-get install chromium"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


class Page:
    """A browser page that records console errors and uncaught exceptions."""

    def __init__(self, browser: Any, width: int, height: int) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           device_scale_factor=1)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    pages: list[Page] = []

    def make(width: int = 1440, height: int = 900) -> Page:
        p = Page(browser, width, height)
        pages.append(p)
        return p

    yield make
    for p in pages:
        p.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where screenshots go: $COGLEAGUE_SCREENSHOT_DIR when set, else a temporary folder."""
    target = os.environ.get(SCREENSHOT_DIR_ENV)
    out = Path(target) if target else tmp_path / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out


def snap(page: Any, path: Path) -> None:
    """A full-page screenshot with the sticky scrubber at the bottom: the viewport is grown to
    the page's height first (a full_page capture alone would leave it mid-page)."""
    width = page.viewport_size["width"]
    height = int(page.evaluate("document.documentElement.scrollHeight"))
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_timeout(250)  # the resize redraw is debounced
    page.screenshot(path=str(path), full_page=True)


def account(http: Any, name: str) -> dict[str, str]:
    """A new player account on a test server (operator-created); its auth header."""
    res = http.post("/accounts", json={"name": name},
                    headers={"Authorization": f"Bearer {OPERATOR_KEY}"})
    res.raise_for_status()
    return {"Authorization": f"Bearer {res.json()['api_key']}"}
