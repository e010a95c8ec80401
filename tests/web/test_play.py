"""A person plays in Chromium: from the Lobby's "Play as a person" to the end card, over the
real play socket of the real table server, against baselines — the dilemma by keyboard only
(with a reload mid-table that must keep the seat), a Ledger quickfire episode and a Commons
episode by clicks. The stored results and replay must show the person's moves."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account
from .test_audit import audit, overflow

pytestmark = pytest.mark.browser

MAX_TURNS = 40


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("play") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def _table(server: Any, game: str, variant: str | None, config: dict[str, Any],
           fill: str) -> tuple[str, dict[str, str]]:
    creator = account(server.http, f"{game}-host")
    body: dict[str, Any] = {"game": game, "seed": 8, "pacing": False, "config": config,
                            "fill_with": fill}
    if variant:
        body["variant"] = variant
    res = server.http.post("/tables", headers=creator, json=body)
    assert res.status_code == 201, res.text
    return res.json()["id"], creator


def _sit_down(server: Any, open_page: Any, tid: str, key: str, keyboard: bool) -> Any:
    """From the Lobby to a seat: the table's "Play as a person" link, the key, the seat."""
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{server.url}/")
    page.wait_for_selector(f"[data-testid=table-{tid}] [data-testid=play-as-person]")
    link = page.locator(f"[data-testid=table-{tid}] [data-testid=play-as-person]")
    if keyboard:
        link.focus()
        page.keyboard.press("Enter")
    else:
        link.click()
    page.wait_for_selector("body[data-ready=join]")
    if keyboard:
        page.locator("[data-testid=key]").focus()
        page.keyboard.type(key)
        page.keyboard.press("Enter")  # submits the join form
    else:
        page.fill("[data-testid=key]", key)
        page.click("[data-testid=take-seat]")
    page.wait_for_selector("body[data-ready=play]")
    return p


def _play(server: Any, p: Any, tid: str, creator: dict[str, str], act: Any,
          reload_after: int | None = None) -> int:
    """Start the table, then answer every turn with `act(page)` until the end card."""
    page = p.page
    server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
    seen, moves = None, 0
    for _ in range(MAX_TURNS):
        page.wait_for_function("""(last) => document.body.dataset.ended === '1'
            || (document.body.dataset.turn && document.body.dataset.turn !== last)""",
                                arg=seen or "")
        if page.evaluate("document.body.dataset.ended") == "1":
            break
        seen = page.evaluate("document.body.dataset.turn")
        assert "left to decide" in page.locator("[data-testid=deadline]").inner_text()
        assert page.locator("[data-testid=view]").count() == 1
        act(page)
        moves += 1
        page.wait_for_function("() => /Move (received|sent)/.test(document.querySelector("
                               "'[data-testid=status]').textContent)")
        if reload_after is not None and moves == reload_after:
            page.reload()  # the seat is kept in this browser: the page reconnects to it
            page.wait_for_selector("body[data-ready=play]")
            seen = None if page.evaluate("document.body.dataset.turn") else seen
    page.wait_for_selector("[data-testid=endcard]")
    return moves


def test_a_person_plays_a_dilemma_table_by_keyboard(server: Any, open_page: Any) -> None:
    tid, creator = _table(server, "dilemma", None, {"rounds_total": 2}, "always_defect")
    key = account(server.http, "person")["Authorization"].split()[1]
    p = _sit_down(server, open_page, tid, key, keyboard=True)

    audited: list[int] = []

    def act(page: Any) -> None:
        if not audited:  # the first turn's page passes the audit at every width
            for width in (360, 768, 1440):
                page.set_viewport_size({"width": width, "height": 800})
                assert audit(page) == [] and overflow(page) == 0
                audited.append(width)
        page.locator("[data-testid=move-form] input[type=radio]").first.focus()
        page.keyboard.press("ArrowRight")  # cooperate -> defect
        page.keyboard.press("ArrowLeft")   # back to cooperate
        page.keyboard.press("Tab")
        page.keyboard.type("I will cooperate.")
        page.keyboard.press("Enter")

    moves = _play(server, p, tid, creator, act, reload_after=1)
    assert moves == 2 * 3  # two rounds, three pairings each
    results = server.http.get(f"/tables/{tid}/results").json()
    me = next(s for s in results["seats"] if s["seat"] == 0)
    assert me["policy"] == "a person"
    assert me["cooperation_rate"] == 1.0
    assert me["promises_kept"] == me["promises_made"] == 6
    assert p.errors == []


def test_a_person_plays_ledger_quickfire(server: Any, open_page: Any) -> None:
    tid, creator = _table(server, "ledger", "quickfire", {"rounds": 4}, "mirror")
    key = account(server.http, "ledger-person")["Authorization"].split()[1]
    p = _sit_down(server, open_page, tid, key, keyboard=False)

    def act(page: Any) -> None:
        move = page.locator("[data-testid=move-form] input[data-control=move]")
        move.fill(move.get_attribute("max") or "0")
        page.fill("[data-testid=move-form] input[data-control=memo]", "remember the plaza")
        page.click("[data-testid=send]")

    assert _play(server, p, tid, creator, act) == 4
    replay = server.http.get(f"/tables/{tid}/replay").json()
    mine = [e for e in replay["events"] if e["kind"] == "meeting" and 0 in (e["a"], e["b"])]
    assert len(mine) == 4
    assert all((e["memoA"] if e["a"] == 0 else e["memoB"]) == "remember the plaza" for e in mine)
    assert p.errors == []


def test_a_person_plays_commons(server: Any, open_page: Any) -> None:
    tid, creator = _table(server, "commons", "cleanup", {"rounds": 3}, "steward")
    key = account(server.http, "commons-person")["Authorization"].split()[1]
    p = _sit_down(server, open_page, tid, key, keyboard=False)

    def act(page: Any) -> None:
        page.fill("[data-testid=move-form] input[data-control=harvest]", "1")
        page.fill("[data-testid=move-form] input[data-control=clean]", "2")
        page.click("[data-testid=send]")

    assert _play(server, p, tid, creator, act) == 3
    results = server.http.get(f"/tables/{tid}/results").json()
    assert results["public_effort"][0] == 2 * 3
    assert p.errors == []
