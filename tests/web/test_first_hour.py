"""A person's first hour in the browser (Chromium, a real table server on loopback): each test
is a defect found by playing — a page that left the word "null" under a table that is not
open, a Lobby with no way back to the seat this browser holds, standings that showed "–"
where a person reads words."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account
from .test_audit import audit, overflow
from .test_people import sign_up

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("first-hour") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def finished_table(server: Any, host: str, rounds: int = 2) -> str:
    """A dilemma table played out by baselines."""
    creator = account(server.http, host)
    tid = str(server.http.post("/tables", headers=creator, json={
        "game": "dilemma", "seed": 2, "pacing": False, "config": {"rounds_total": rounds},
        "fill_with": "tit_for_tat"}).json()["id"])
    server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
    deadline = time.monotonic() + 60
    while server.http.get(f"/tables/{tid}").json()["state"] != "finished":
        assert time.monotonic() < deadline, "the table did not finish"
        time.sleep(0.1)
    return tid


def test_a_finished_table_on_the_play_page_says_no_null(server: Any, open_page: Any) -> None:
    tid = finished_table(server, "null-host")
    p = open_page(360, 740)
    page = p.page
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=error]")
    text = page.inner_text("#play")
    assert "finished" in text
    assert not re.search(r"\bnull\b|undefined", text), text
    assert p.errors == []
