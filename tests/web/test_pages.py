"""Lobby, Observatory and Rules in a real browser against the real table server: open tables
with the copyable join command, standings from finished tables, the rendered rules pages."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account, snap

pytestmark = pytest.mark.browser

FINISH_TIMEOUT_S = 60


def _scripted_table(http: httpx.Client, tag: str, lineup: list[str], start: bool,
                    seed: int) -> str:
    creator = account(http, f"{tag}-creator")
    tid = http.post("/tables", headers=creator, json={
        "game": "dilemma", "seed": seed, "pacing": False,
        "config": {"rounds_total": 5}}).json()["id"]
    for seat, baseline in enumerate(lineup):
        if baseline:
            http.post(f"/tables/{tid}/join", headers=account(http, f"{tag}-{seat}"), json={
                "kind": "scripted", "baseline": baseline, "seat": seat,
                "name": baseline}).raise_for_status()
    if start:
        http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
        deadline = time.monotonic() + FINISH_TIMEOUT_S
        while http.get(f"/tables/{tid}").json()["state"] != "finished":
            assert time.monotonic() < deadline, "the scripted table did not finish"
            time.sleep(0.1)
    return tid


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("pages") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=20) as http:
        lineup = ["tit_for_tat", "always_defect", "pavlov", "grim_trigger"]
        finished = [_scripted_table(http, f"f{i}", lineup,
                                    True, seed=i) for i in range(2)]
        open_id = _scripted_table(http, "open", ["tit_for_tat", None, None, None], False, 9)
        live.finished, live.open_id = finished, open_id  # type: ignore[attr-defined]
        live.results = [http.get(f"/tables/{t}/results").json()  # type: ignore[attr-defined]
                        for t in finished]
        yield live


def test_lobby_lists_tables_with_a_join_command(server: Any, open_page: Any,
                                                shots: Path) -> None:
    for width, height in ((1440, 900), (360, 780)):
        p = open_page(width, height)
        p.page.goto(f"{server.url}/")
        p.page.wait_for_selector("body[data-ready=lobby]")
        card = p.page.locator(f"[data-testid=table-{server.open_id}]")
        command = card.locator(".copy code").inner_text()
        assert command.startswith("cogleague bot run examples/dilemma_bot.py:PromiseKeeper")
        assert f"--table {server.open_id}" in command and f"--server {server.url}" in command
        assert card.locator(".seat.free").count() == 3
        for tid in server.finished:
            link = p.page.locator(f"[data-testid=table-{tid}] a")
            assert link.get_attribute("href") == f"/theater?table={tid}"
        snap(p.page, shots / f"lobby-{width}.png")
        assert p.errors == []


def test_observatory_shows_standings_from_finished_tables(server: Any, open_page: Any,
                                                          shots: Path) -> None:
    totals: dict[str, list[float]] = {}
    for res in server.results:
        for seat in res["seats"]:
            totals.setdefault(seat["policy"], []).append(seat["points"])
    p = open_page(1440, 900)
    p.page.goto(f"{server.url}/observatory?game=dilemma")
    p.page.wait_for_selector("[data-testid=standings-dilemma]")
    for policy, points in totals.items():
        shown = p.page.locator(f"[data-testid=row-{policy}] [data-field=mean]").inner_text()
        assert float(shown) == pytest.approx(sum(points) / len(points), abs=5e-4)
    snap(p.page, shots / "observatory-1440.png")
    assert p.errors == []


def test_finished_table_opens_as_its_replay(server: Any, open_page: Any) -> None:
    p = open_page(1440, 900)
    p.page.goto(f"{server.url}/theater?table={server.finished[0]}")
    p.page.wait_for_selector("[data-testid=endcard]")
    for seat in server.results[0]["seats"]:
        row = p.page.locator(f"[data-testid=final-{seat['seat']}]")
        assert row.locator("[data-field=points]").inner_text() == str(seat["points"])
    assert p.errors == []


def test_rules_pages_render(server: Any, open_page: Any, shots: Path) -> None:
    p = open_page(1440, 900)
    p.page.goto(f"{server.url}/rules")
    p.page.wait_for_selector("body[data-ready=rules]")
    names = p.page.locator("#tabs button").evaluate_all("bs => bs.map(b => b.dataset.name)")
    # every installed game (sorted by name; plugins included), then the protocol
    assert {"ledger", "commons", "dilemma"} <= set(names[:-1]) and names[-1] == "protocol"
    assert names[:-1] == sorted(names[:-1])
    for name in names:
        p.page.click(f"#tabs button[data-name={name}]")
        p.page.wait_for_selector(f"#doc[data-doc={name}] h1, #doc[data-doc={name}] h2")
    p.page.click("#tabs button[data-name=ledger]")
    p.page.wait_for_selector("#doc[data-doc=ledger]")
    p.page.screenshot(path=str(shots / "rules-1440.png"))
    assert p.errors == []
