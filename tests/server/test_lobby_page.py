"""The Lobby page, served by one process, shows what happens on another process as it happens:
a table created, joined and started through process A appears, changes and moves section on
the page of process B, pushed over `WS /ws/lobby` (the page polls GET /tables only every 10
minutes here, so nothing the test sees can come from a poll), and a focused button of the card
keeps the focus while the card is rebuilt. Chromium through Playwright's sync API, in a module
of its own (its event loop must not meet the asyncio tests)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.support import OPERATOR_KEY, ServerProcess

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.postgres


def _post(server: ServerProcess, path: str, key: str, body: dict[str, Any] | None = None
          ) -> dict[str, Any]:
    r = httpx.post(f"{server.url}{path}", json=body or {},
                   headers={"Authorization": f"Bearer {key}"}, timeout=20)
    r.raise_for_status()
    doc: dict[str, Any] = r.json()
    return doc


def test_lobby_page_on_b_follows_tables_made_on_a(
        pg_cluster: Any, make_server: Callable[..., ServerProcess]) -> None:
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"Debian's Chromium ({CHROMIUM}) is not installed")
        pytest.skip(f"Debian's Chromium ({CHROMIUM}) is not installed: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    db = pg_cluster.new_database()
    a = make_server(db)
    b = make_server(db)
    creator = _post(a, "/accounts", OPERATOR_KEY, {"name": "lobby-creator"})["api_key"]
    player = _post(a, "/accounts", OPERATOR_KEY, {"name": "lobby-player"})["api_key"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.set_default_timeout(20_000)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{b.url}/?refresh_ms=600000")
            page.wait_for_selector("body[data-lobby-stream=open]")
            refreshes = page.evaluate("document.body.dataset.refreshes")

            tid = _post(a, "/tables", creator, {"game": "dilemma", "pacing": False, "seed": 4,
                                                "fill_with": "tit_for_tat",
                                                "config": {"rounds_total": 3}})["id"]
            card = f"[data-testid=section-open] [data-testid=table-{tid}]"
            page.wait_for_selector(card)
            assert page.locator(f"{card} .seat.free").count() == 4
            page.locator(f"{card} .copy button").focus()

            _post(a, f"/tables/{tid}/join", player, {"kind": "scripted",
                                                      "baseline": "always_defect", "seat": 1})
            page.wait_for_function(
                f"() => document.querySelectorAll('{card} .seat.free').length === 3")
            assert page.evaluate("document.activeElement.closest('[data-testid^=table-]')"
                                 "?.dataset.testid") == f"table-{tid}"
            assert page.evaluate("document.activeElement.tagName") == "BUTTON"

            _post(a, f"/tables/{tid}/start", creator)
            page.wait_for_selector(f"[data-testid=section-finished] [data-testid=table-{tid}]")
            assert page.locator(card).count() == 0
            assert page.evaluate("document.body.dataset.lobbyStream") == "open"
            assert int(page.evaluate("document.body.dataset.refreshes")) > int(refreshes)
            assert errors == []
        finally:
            browser.close()
