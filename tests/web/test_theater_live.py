"""The Theater watching a live table of the real table server (`create_app`, with the web
router it includes) on a loopback uvicorn: the page updates as moves land, and turns into the
full replay with its end card when the table finishes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from .conftest import OPERATOR_KEY, LiveServer, account

pytestmark = pytest.mark.browser

ROUNDS = 3
CELLS_PER_ROUND = 2 * 6  # four seats: six pairings, two choices each


class RemoteSeat:
    """Seat 2 of the table, played by the test over the real play socket, one turn at a time."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    def next_turn(self) -> dict[str, Any] | None:
        while True:
            frame = json.loads(self.ws.recv(timeout=20))
            if frame["type"] == "your_turn":
                return frame
            if frame["type"] == "snapshot" and frame.get("your_turn"):
                return frame["your_turn"]
            if frame["type"] == "end":
                return None

    def move(self, turn: dict[str, Any], action: str) -> None:
        self.ws.send(json.dumps({"type": "move", "turn_id": turn["turn_id"], "action": action,
                                 "message": "I will cooperate."}))


def _cells(page: Any) -> int:
    return int(page.locator("[data-testid=cell]").count())


def test_live_dilemma_table(tmp_path: Path, open_page: Any, shots: Path) -> None:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    app = create_app(Settings(db_url=f"sqlite:///{tmp_path / 'server.db'}",
                              operator_key=OPERATOR_KEY))
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=20) as http:
        creator = account(http, "creator")
        table = http.post("/tables", headers=creator, json={
            "game": "dilemma", "seed": 5, "pacing": False,
            "config": {"rounds_total": ROUNDS}}).json()
        tid = table["id"]
        for seat, baseline in ((0, "tit_for_tat"), (1, "always_defect"), (3, "pavlov")):
            http.post(f"/tables/{tid}/join", headers=account(http, f"s{seat}"), json={
                "kind": "scripted", "baseline": baseline, "seat": seat,
                "name": baseline}).raise_for_status()
        joined = http.post(f"/tables/{tid}/join", headers=account(http, "s2"), json={
            "kind": "remote", "seat": 2, "name": "the-test"}).json()

        p = open_page(1440, 900)
        page = p.page
        page.goto(f"{server.url}/theater?table={tid}")
        # not started yet: the page says so (no "live" badge, no empty panels)
        page.wait_for_selector("body[data-ready=waiting]")
        assert page.locator("[data-testid=live]").count() == 0
        assert page.locator("[data-testid=waiting]").count() == 1
        assert page.locator("[data-testid=not-started]").is_visible()
        assert not page.locator("[data-testid=stage]").is_visible()
        ws_url = server.url.replace("http://", "ws://")
        with connect(f"{ws_url}/ws/play?table={tid}&seat=2&token={joined['token']}") as ws:
            remote = RemoteSeat(ws)
            http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
            turn = remote.next_turn()
            assert turn is not None
            page.wait_for_selector("body[data-ready=live]")
            assert page.locator("[data-testid=live]").count() == 1
            assert page.locator("[data-testid=not-started]").count() == 0
            assert _cells(page) == 0  # nothing is revealed before seat 2 has answered
            rounds_seen = 1
            while turn is not None:
                remote.move(turn, "cooperate")
                turn = remote.next_turn()
                if turn is not None and turn["visible_state"]["round"] > rounds_seen:
                    # a turn of a new round: the last round's reveals are on the page now
                    rounds_seen = turn["visible_state"]["round"]
                    page.wait_for_function("n => document.querySelectorAll("
                                           "'[data-testid=cell]').length >= n",
                                           arg=CELLS_PER_ROUND * (rounds_seen - 1))
                    assert page.locator("[data-testid=live]").count() == 1
                    if rounds_seen == 2:
                        page.screenshot(path=str(shots / "live-dilemma-1440.png"))
            assert rounds_seen == ROUNDS
        # the end: the page reloads the full replay and shows the end card
        page.wait_for_selector("[data-testid=endcard]")
        results = http.get(f"/tables/{tid}/results").json()
        for seat in results["seats"]:
            row = page.locator(f"[data-testid=final-{seat['seat']}]")
            assert row.locator("[data-field=points]").inner_text() == str(seat["points"])
        assert page.locator("[data-testid=cell]").count() == CELLS_PER_ROUND * ROUNDS
        assert p.errors == []
