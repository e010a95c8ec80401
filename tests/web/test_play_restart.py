"""A person's "Your moves" list holds what the table holds. The server restarts in the middle
of a step: the person's first move of that step was acknowledged but not yet committed (the
step waits for the person's second turn), so the restarted table asks that turn again — the
list must not go on showing the move it lost, and shows it once it is played again; a reload
keeps the list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from cogleague.server.app import create_app
from cogleague.server.settings import Settings
from cogleague.web.replay_server import bind

from .conftest import OPERATOR_KEY, LiveServer, account
from .test_audit import audit

pytestmark = pytest.mark.browser

TURN = "document.body.dataset.turn"


def _serve(db: Path, sock: Any = None) -> LiveServer:
    return LiveServer(create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY)),
                      sock)


def _send(page: Any) -> None:
    page.locator("[data-testid=move-form] input[type=radio]").first.check()
    page.click("[data-testid=send]")


def test_a_move_lost_in_a_restart_leaves_the_moves_list(tmp_path: Path, open_page: Any
                                                        ) -> None:
    db = tmp_path / "server.db"
    first = _serve(db)
    with first, httpx.Client(base_url=first.url, timeout=30) as http:
        host = account(http, "restart-host")
        tid = http.post("/tables", headers=host, json={
            "game": "dilemma", "seed": 3, "pacing": False, "fill_with": "always_defect",
            "config": {"seats": 3, "rounds_total": 2, "turn_deadline_ms": 90_000}}).json()["id"]
        key = account(http, "restart-person")["Authorization"].split()[1]
        p = open_page(1280, 900)
        page = p.page
        page.goto(f"{first.url}/play?table={tid}")
        page.wait_for_selector("body[data-ready=join]")
        page.fill("[data-testid=key]", key)
        page.click("[data-testid=take-seat]")
        page.wait_for_selector("body[data-ready=play]")
        http.post(f"/tables/{tid}/start", headers=host).raise_for_status()
        page.wait_for_function(f"!!{TURN}")
        lost = page.evaluate(TURN)
        _send(page)
        # acknowledged, and the step's next turn of this seat is asked: the step is not over
        page.wait_for_function(f"(t) => {TURN} !== t", arg=lost)
        assert page.locator("[data-testid=moves] li").count() == 1
        port = int(first.url.rsplit(":", 1)[1])
    page.wait_for_function("""() => /lost/.test(
        document.querySelector('[data-testid=status]').textContent)""")
    with _serve(db, bind("127.0.0.1", port)):
        # the restarted table asks the lost turn again
        page.wait_for_function(f"(t) => {TURN} === t", arg=lost, timeout=30_000)
        page.wait_for_selector("[data-testid=send]:not([disabled])")
        assert page.locator("[data-testid=moves] li").count() == 0, \
            page.locator("[data-testid=moves]").inner_text()
        assert "send it again" in page.locator("[data-testid=status]").inner_text()
        _send(page)
        page.wait_for_function(f"(t) => {TURN} !== t", arg=lost)
        assert page.locator("[data-testid=moves] li").count() == 1
        assert audit(page) == []
        # a reload keeps the seat, and the moves this browser played at it
        page.reload()
        page.wait_for_selector("body[data-ready=play]")
        page.wait_for_selector("[data-testid=send]:not([disabled])")
        assert page.locator("[data-testid=moves] li").count() == 1
    assert p.errors == []
