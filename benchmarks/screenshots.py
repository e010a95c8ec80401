"""Regenerate docs/screenshots/: every web page at 360 and 1440 px, in Debian's Chromium.

    PYTHONPATH=src python benchmarks/screenshots.py [OUT_DIR]

A real table server on a loopback port with a finished dilemma table, an open Commons table
and a person's seat at an open dilemma table; the Theater on a replay of each game. Not a
test (nothing is asserted): the browser tests check the pages; this keeps the pictures in
docs/web.md current.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.games import registry
from cogleague.seats.factory import make_seats
from cogleague.server.app import create_app
from cogleague.server.settings import Settings
from cogleague.web.replay_server import bind, create_replay_app

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
OPERATOR = "op-" + "s" * 40
WIDTHS = (360, 1440)
REPLAYS = {"ledger": ("standard", 7), "commons": ("cleanup", 20260824), "dilemma": (None, 11)}


class Served:
    """An ASGI app on a loopback port, in a thread."""

    def __init__(self, app: Any) -> None:
        self.sock = bind("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        while not self.server.started:
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def replay(game: str, out: Path) -> Path:
    variant, seed = REPLAYS[game]
    info = registry.get(game)
    g = info.new_game(variant, {}, seed)
    seats = make_seats(g, info.default_lineup(variant))
    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API owns this thread's loop
        outcome = pool.submit(play_headless, g, seats).result()
    return jsonio.write(out / f"{game}.json", g.replay_document(outcome.log))


def tables(http: httpx.Client) -> dict[str, str]:
    def key(name: str) -> dict[str, str]:
        res = http.post("/accounts", json={"name": name},
                        headers={"Authorization": f"Bearer {OPERATOR}"})
        return {"Authorization": f"Bearer {res.json()['api_key']}"}

    host = key("host")
    done = http.post("/tables", headers=host, json={
        "game": "dilemma", "seed": 3, "pacing": False, "config": {"rounds_total": 6},
        "fill_with": "pavlov"}).json()["id"]
    http.post(f"/tables/{done}/start", headers=host)
    waiting = http.post("/tables", headers=host, json={
        "game": "commons", "variant": "cleanup", "seed": 3, "config": {"rounds": 6}}).json()["id"]
    person = http.post("/tables", headers=host, json={
        "game": "dilemma", "seed": 4, "pacing": False, "config": {"rounds_total": 3},
        "fill_with": "tit_for_tat"}).json()["id"]
    while http.get(f"/tables/{done}").json()["state"] != "finished":
        time.sleep(0.1)
    return {"done": done, "waiting": waiting, "person": person,
            "key": key("person")["Authorization"].split()[1], "host": host["Authorization"]}


def shoot(page: Any, path: Path) -> None:
    height = int(page.evaluate("document.documentElement.scrollHeight"))
    page.set_viewport_size({"width": page.viewport_size["width"], "height": min(height, 2400)})
    page.wait_for_timeout(250)
    page.screenshot(path=str(path), full_page=True)
    print(path)


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="cogleague-shots-"))  # a fresh store each run
    app = create_app(Settings(db_url=f"sqlite:///{work / 'server.db'}", operator_key=OPERATOR))
    with Served(app) as site, httpx.Client(base_url=site.url, timeout=30) as http, \
            sync_playwright() as pw:
        ids = tables(http)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pages = [("lobby", "/", "lobby"),
                 ("observatory", "/observatory?game=dilemma", "observatory"),
                 ("rules", "/rules?doc=dilemma", "rules"),
                 ("protocol", "/rules?doc=protocol", "rules"),
                 ("theater-waiting", f"/theater?table={ids['waiting']}", "waiting"),
                 ("theater-table", f"/theater?table={ids['done']}", "replay")]
        for width in WIDTHS:
            for name, path, ready in pages:
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(site.url + path)
                page.wait_for_selector(f"body[data-ready={ready}]")
                shoot(page, out / f"{name}-{width}.png")
                page.close()
        # a person at the dilemma table: the join form at each width, then a turn
        for width in reversed(WIDTHS):
            ctx = browser.new_context(viewport={"width": width, "height": 900})
            page = ctx.new_page()
            page.goto(f"{site.url}/play?table={ids['person']}")
            page.wait_for_selector("body[data-ready=join]")
            page.fill("[data-testid=key]", ids["key"])
            shoot(page, out / f"play-join-{width}.png")
            if width == WIDTHS[0]:
                page.click("[data-testid=take-seat]")
                page.wait_for_selector("body[data-ready=play]")
                http.post(f"/tables/{ids['person']}/start",
                          headers={"Authorization": ids["host"]})
                page.wait_for_selector("[data-testid=move-form]")
                shoot(page, out / f"play-turn-{width}.png")
                page.set_viewport_size({"width": 1440, "height": 900})
                shoot(page, out / "play-turn-1440.png")
            ctx.close()
        browser.close()
    for game in REPLAYS:
        with Served(create_replay_app(replay(game, work))) as served, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for width in WIDTHS:
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(f"{served.url}/theater?file=1")
                page.wait_for_selector("body[data-ready=replay]")
                for _ in range(5):
                    page.keyboard.press("ArrowRight")
                shoot(page, out / f"{game}-{width}.png")
                if width == WIDTHS[-1]:
                    page.keyboard.press("End")
                    page.wait_for_selector("[data-testid=endcard]")
                    shoot(page, out / f"{game}-end-{width}.png")
                page.close()
            browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots"))
