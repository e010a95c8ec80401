"""The accessibility audit: axe-core (the copy bundled by axe-playwright-python) run in Chromium
on every page — Lobby, Theater (replay of each game, live, not started), Observatory, Rules and
the protocol page — at 360, 768 and 1440 px. No serious or critical violation (colour contrast
included), and no horizontal scroll at any width."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account
from .replays import write_replay

pytestmark = pytest.mark.browser

WIDTHS = (360, 768, 1440)
AXE_JS = Path(__import__("axe_playwright_python").__file__).parent / "axe.min.js"
BLOCKING = ("serious", "critical")


def audit(page: Any) -> list[str]:
    """axe-core's serious and critical violations on the page, one line each."""
    page.add_script_tag(path=str(AXE_JS))
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map((v) => ({id: v.id, impact: v.impact,
            nodes: v.nodes.slice(0, 3).map((n) =>
                n.target.join(' ') + ' ' + (n.failureSummary || ''))}));
    }""")
    return [f"{v['id']} ({v['impact']}): {json.dumps(v['nodes'])}" for v in result
            if v["impact"] in BLOCKING]


def overflow(page: Any) -> int:
    """How far the page scrolls sideways (0: it fits)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    tmp = tmp_path_factory.mktemp("audit")
    app = create_app(Settings(db_url=f"sqlite:///{tmp / 'server.db'}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        creator = account(http, "audit")
        finished = http.post("/tables", headers=creator, json={
            "game": "dilemma", "seed": 2, "pacing": False, "config": {"rounds_total": 4},
            "fill_with": "tit_for_tat"}).json()["id"]
        http.post(f"/tables/{finished}/start", headers=creator).raise_for_status()
        waiting = http.post("/tables", headers=creator, json={
            "game": "commons", "variant": "cleanup", "seed": 2, "pacing": False,
            "config": {"rounds": 3}}).json()["id"]
        deadline = time.monotonic() + 60
        while http.get(f"/tables/{finished}").json()["state"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        replays = {}
        for game in ("ledger", "commons", "dilemma"):
            path, _ = write_replay(game, tmp / f"{game}.json")
            replays[game] = path
        live.finished, live.waiting, live.replays = finished, waiting, replays  # type: ignore
        yield live


def _pages(site: Any) -> list[tuple[str, str, str]]:
    """(name, path, the body[data-ready] value to wait for)."""
    return [("lobby", "/", "lobby"), ("observatory", "/observatory?game=dilemma", "observatory"),
            ("rules", "/rules?doc=dilemma", "rules"), ("protocol", "/rules?doc=protocol", "rules"),
            ("theater-waiting", f"/theater?table={site.waiting}", "waiting"),
            ("play-join", f"/play?table={site.waiting}", "join"), ("play", "/play", "play"),
            ("theater-finished", f"/theater?table={site.finished}", "replay")]


@pytest.mark.parametrize("width", WIDTHS)
def test_pages_pass_axe(site: Any, open_page: Any, width: int) -> None:
    problems: dict[str, Any] = {}
    p = open_page(width, 800)
    for name, path, ready in _pages(site):
        p.page.goto(f"{site.url}{path}")
        p.page.wait_for_selector(f"body[data-ready={ready}]")
        p.page.wait_for_timeout(100)
        found = audit(p.page)
        if found:
            problems[name] = found
        if overflow(p.page) > 0:
            problems[f"{name} scroll"] = overflow(p.page)
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())
    assert p.errors == []


@pytest.mark.parametrize("game", ["ledger", "commons", "dilemma"])
def test_theater_replays_pass_axe(site: Any, open_page: Any, game: str) -> None:
    from cogleague.web.replay_server import create_replay_app

    problems: dict[str, Any] = {}
    with LiveServer(create_replay_app(site.replays[game])) as server:
        for width in WIDTHS:
            p = open_page(width, 800)
            p.page.goto(f"{server.url}/theater?file=1")
            p.page.wait_for_selector("body[data-ready=replay]")
            for key, where in (("ArrowRight", "round 1"), ("End", "end card")):
                p.page.keyboard.press(key)
                p.page.wait_for_timeout(100)
                found = audit(p.page)
                if found:
                    problems[f"{width} {where}"] = found
                if overflow(p.page) > 0:
                    problems[f"{width} {where} scroll"] = overflow(p.page)
            assert p.errors == []
    assert not problems, "\n".join(f"{k}: {v}" for k, v in problems.items())
