"""Once the table has a person's move, the Play page stops telling them to decide: the turn's
countdown ("Deadline: 19 s left to decide") went on ticking under "Move received. Waiting for
the others…". Read in the same instant the status changes (a MutationObserver), so the next
turn arriving cannot hide it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account

pytestmark = pytest.mark.browser

WATCH = """() => {
    window.__seen = [];
    const status = document.querySelector('[data-testid=status]');
    new MutationObserver(() => window.__seen.push([status.textContent,
        document.querySelector('[data-testid=deadline]').textContent]))
        .observe(status, {childList: true, characterData: true, subtree: true});
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("clock") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def test_no_countdown_once_the_move_is_in(server: Any, open_page: Any) -> None:
    creator = account(server.http, "clockhost")
    res = server.http.post("/tables", headers=creator, json={
        "game": "dilemma", "seed": 3, "pacing": False, "fill_with": "always_cooperate",
        "config": {"rounds_total": 2, "seats": 3}})
    assert res.status_code == 201, res.text
    tid = res.json()["id"]
    p = open_page(1000, 900)
    page = p.page
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    page.fill("[data-testid=key]", creator["Authorization"].split()[1])
    page.click("[data-testid=take-seat]")
    page.wait_for_selector("body[data-ready=play]")
    page.evaluate(WATCH)
    server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
    page.wait_for_selector("[data-testid=send]:not([disabled])")
    assert "left to decide" in page.locator("[data-testid=deadline]").inner_text()
    page.click("[data-testid=send]")
    page.wait_for_function("""() => window.__seen.some(([s]) => /Move received/.test(s))""")
    seen = page.evaluate("window.__seen")
    received = [clock for status, clock in seen if "Move received" in status]
    assert received and not any("left to decide" in c for c in received), seen
    assert p.errors == []
