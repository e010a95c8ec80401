"""A signed-in person whose browser lost the seat's token (storage cleared, another tab or
device) takes their own seat back from the Play page (Chromium, real server on loopback):
taking a seat answers that they already hold one, and the page offers to take it back on this
device; the page that still had the old token is then refused, and the person plays the table
out with the new one. A running table offers the same to a person without a kept seat."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account
from .test_audit import audit, overflow
from .test_people import sign_up
from .test_play import _play

pytestmark = pytest.mark.browser
CONFIG = {"rounds_total": 1, "turn_deadline_ms": 90_000}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("reclaim") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def new_table(server: Any, host: str) -> tuple[str, dict[str, str]]:
    """A dilemma table of one round, its empty seats cooperating baselines; its creator."""
    creator = account(server.http, host)
    res = server.http.post("/tables", headers=creator, json={
        "game": "dilemma", "seed": 8, "pacing": False, "config": CONFIG,
        "fill_with": "always_cooperate"})
    assert res.status_code == 201, res.text
    return res.json()["id"], creator


def forget_token(page: Any, tid: str) -> None:
    page.evaluate("(id) => localStorage.removeItem(`cogleague.seat.${id}`)", tid)


def cooperate(page: Any) -> None:
    page.locator("[data-testid=move-form] input[type=radio]").first.check()
    page.click("[data-testid=send]")


def test_a_person_takes_back_their_seat_on_this_device(server: Any, open_page: Any) -> None:
    tid, creator = new_table(server, "reclaim-host")
    p = open_page(1280, 900)
    page = p.page
    sign_up(page, server.url, "reclaimer")
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    page.click("[data-testid=take-seat]")
    page.wait_for_selector("body[data-ready=play]")

    old = p.context.new_page()  # the first tab keeps the first token in memory
    old.goto(f"{server.url}/play?table={tid}")
    old.wait_for_selector("body[data-ready=play]")
    forget_token(page, tid)  # this browser's storage is cleared
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    page.click("[data-testid=take-seat]")
    offer = page.locator("[data-testid=reclaim-seat]")
    offer.wait_for()
    assert "already hold a seat" in page.locator("[data-testid=join] [role=status]").inner_text()
    assert audit(page) == [] and overflow(page) == 0
    offer.click()
    page.wait_for_selector("body[data-ready=play]")

    old.wait_for_selector("[data-testid=seat-refused]:not([hidden])")  # its token is dead
    assert _play(server, p, tid, creator, cooperate) == 3  # one round: each of 3 others
    results = server.http.get(f"/tables/{tid}/results").json()
    assert next(s for s in results["seats"] if s["seat"] == 0)["cooperation_rate"] == 1.0
    assert [e for e in p.errors if "status of 409" not in e] == []  # the refused join only


def test_a_running_table_offers_the_seat_back_only_to_its_holder(server: Any,
                                                                  open_page: Any) -> None:
    tid, creator = new_table(server, "running-host")
    p = open_page(1280, 900)
    page = p.page
    sign_up(page, server.url, "runner")
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    page.click("[data-testid=take-seat]")
    page.wait_for_selector("body[data-ready=play]")
    server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()

    stranger = open_page(1280, 900)
    sign_up(stranger.page, server.url, "stranger")
    stranger.page.goto(f"{server.url}/play?table={tid}")
    stranger.page.wait_for_selector("body[data-ready=error]")
    stranger.page.click("[data-testid=reclaim-seat]")
    stranger.page.wait_for_selector("[data-testid=reclaim-problem]")
    assert "no seat" in stranger.page.locator("[data-testid=reclaim-problem]").inner_text()

    forget_token(page, tid)
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=error]")
    page.click("[data-testid=reclaim-seat]")
    page.wait_for_selector("body[data-ready=play]")
    moved = ""
    for _ in range(4):  # one round: a turn against each of the three others
        page.wait_for_function("""(last) => document.body.dataset.ended === '1'
            || (document.body.dataset.turn && document.body.dataset.turn !== last)""", arg=moved)
        if page.evaluate("document.body.dataset.ended") == "1":
            break
        moved = page.evaluate("document.body.dataset.turn")
        cooperate(page)
    page.wait_for_selector("[data-testid=endcard]")
    results = server.http.get(f"/tables/{tid}/results").json()
    assert next(s for s in results["seats"] if s["seat"] == 0)["cooperation_rate"] == 1.0
    assert p.errors == []
    assert [e for e in stranger.errors if "status of 404" not in e] == []  # the refused reclaim
