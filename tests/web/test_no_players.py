"""An episode nobody came to (the connect timeout's `no_players`, `core/connect.py`) in a real
browser: the Theater says what happened instead of an error, and the Observatory counts it
apart without ranking anyone on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from cogleague.web import routes
from cogleague.web.replay_server import create_replay_app
from cogleague.web.standings import STORE_URL_STATE

from .conftest import OPERATOR_KEY, LiveServer, account, snap
from .replays import make_replay, no_players_replay

pytestmark = pytest.mark.browser


def test_the_theater_shows_a_no_players_replay_as_such(tmp_path: Path, open_page: Any,
                                                       shots: Path) -> None:
    path, doc = no_players_replay("commons", tmp_path / "replay.json", "cleanup")
    assert (doc["results"]["reason"], doc["rounds"]) == ("no_players", [])
    with LiveServer(create_replay_app(path)) as server:
        for width, height in ((1440, 900), (360, 780)):
            p = open_page(width, height)
            p.page.goto(f"{server.url}/theater?file=1")
            p.page.wait_for_selector("body[data-ready=replay]")
            panel = p.page.locator("[data-testid=no-players]")
            assert panel.locator("h2").text_content() == "Nobody came to play"
            assert "(reason no_players)" in panel.inner_text()
            assert p.page.locator("[data-testid=reason]").inner_text() == "no_players"
            assert p.page.locator("[data-testid=error]").count() == 0
            p.page.keyboard.press("End")  # the scrubber still works on an empty episode
            snap(p.page, shots / f"no-players-{width}.png")
            if width == 1440:
                snap(p.page, Path("/tmp/ending") / f"no-players-{width}.png")
            assert p.errors == []


def test_a_normal_replay_has_no_such_panel(tmp_path: Path, open_page: Any) -> None:
    from cogleague.core import jsonio

    path = jsonio.write(tmp_path / "replay.json", make_replay("commons"))
    with LiveServer(create_replay_app(path)) as server:
        p = open_page(1440, 900)
        p.page.goto(f"{server.url}/theater?file=1")
        p.page.wait_for_selector("body[data-ready=replay]")
        assert p.page.locator("[data-testid=no-players]").count() == 0
        assert p.errors == []


def test_the_observatory_counts_no_players_episodes_apart(tmp_path: Path, open_page: Any,
                                                          shots: Path) -> None:
    from cogleague.league.store import record_episode

    url = f"sqlite:///{tmp_path / 'league.db'}"
    played = make_replay("commons", lineup=["steward", "free_rider"] * 3, seed=4)["results"]
    _, unplayed = no_players_replay("commons", tmp_path / "np.json", "cleanup")
    lineup = ["steward", "free_rider"] * 3
    record_episode(url, game="commons", variant="cleanup", seed=4, table_id="t-played",
                   policy_names=lineup, results=played)
    record_episode(url, game="commons", variant="cleanup", seed=3, table_id="t-unplayed",
                   policy_names=lineup, results=unplayed["results"])
    app = FastAPI()
    app.include_router(routes.router)
    setattr(app.state, STORE_URL_STATE, url)
    with LiveServer(app) as server:
        p = open_page(1440, 900)
        p.page.goto(f"{server.url}/observatory?game=commons")
        p.page.wait_for_selector("[data-testid=standings-commons]")
        note = p.page.locator("[data-testid=no-players]").inner_text()
        assert note.startswith("1 episode ended no_players") and "not ranked" in note
        # the means are those of the one played episode: the empty one ranks nobody
        for policy in ("steward", "free_rider"):
            seats = [s for s, name in enumerate(lineup) if name == policy]
            mean = sum(played["scores"][s] for s in seats) / len(seats)
            shown = p.page.locator(f"[data-testid=row-{policy}] [data-field=mean]").inner_text()
            assert float(shown) == pytest.approx(mean, abs=5e-4)
            games = p.page.locator(f"[data-testid=row-{policy}] td").nth(2).inner_text()
            assert games == "1"
        snap(p.page, shots / "observatory-no-players.png")
        assert p.errors == []


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("np") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def test_a_live_table_nobody_comes_to_ends_as_no_players_in_theater_and_observatory(
        server: Any, open_page: Any, shots: Path) -> None:
    http = server.http
    creator = account(http, "np-creator")
    res = http.post("/tables", headers=creator, json={
        "game": "commons", "variant": "cleanup", "seed": 3, "pacing": False,
        "config": {"rounds": 2, "connect_timeout_seconds": 1}})
    assert res.status_code == 201, res.text
    tid = res.json()["id"]
    for seat in range(6):
        joined = http.post(f"/tables/{tid}/join", headers=account(http, f"np-seat{seat}"),
                           json={"kind": "remote", "seat": seat, "name": f"cog{seat}"})
        assert joined.status_code == 200, joined.text
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{server.url}/theater?table={tid}")
    page.wait_for_selector("body[data-ready=waiting]")
    http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
    # the watcher follows the running table, hears its end and swaps in the full replay
    page.wait_for_selector("[data-testid=no-players]", timeout=30_000)
    assert http.get(f"/tables/{tid}").json()["reason"] == "no_players"
    assert page.locator("[data-testid=error]").count() == 0
    snap(page, shots / "no-players-live-1440.png")
    assert p.errors == []
    # the server records the episode in its league store (after the end, in the background):
    # the Observatory counts it apart
    for _ in range(100):
        (game,) = http.get("/api/standings", params={"game": "commons"}).json()["games"]
        if game["no_players"]:
            break
        page.wait_for_timeout(100)
    assert (game["no_players"], game["episodes"]) == (1, 0)
    page.goto(f"{server.url}/observatory?game=commons")
    page.wait_for_selector("body[data-ready=observatory]")
    note = page.locator("[data-testid=no-players]").inner_text()
    assert note.startswith("1 episode ended no_players")
    assert "No finished Commons Family episode yet." in page.locator("#standings").inner_text()
    assert p.errors == []
