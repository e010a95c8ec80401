"""The Theater watching a live table of every game, start to end card, on the real table server:
one seat is played by the test over the real play socket, so the table moves one round at a
time and the page must show each round before the next. Ledger, Commons Family (whose watch
stream withholds the restricted fields its fold used to need) and a game with no viewer module
(the generic renderer)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from .conftest import OPERATOR_KEY, LiveServer, account
from .tally import TALLY

pytestmark = pytest.mark.browser


SLOW_SEAT = {"round_seconds": 90, "decision_timeout_seconds": 90}
"""Commons deadlines long enough that the test's seat never times out while a page loads."""


def _ledger_move(legal: dict[str, Any]) -> dict[str, Any]:
    return {"move": legal["move"]["max"] // 2}


def _commons_move(legal: dict[str, Any]) -> dict[str, Any]:
    return {"harvest": 1, "clean": 1, "message": "steady"}


def _tally_move(legal: dict[str, Any]) -> dict[str, Any]:
    return {"value": legal["value"][1]}


def _turns(ws: Any) -> Any:
    """Each turn of the remote seat, once (frames until `end`)."""
    seen = set()
    while True:
        frame = json.loads(ws.recv(timeout=30))
        if frame["type"] == "snapshot" and frame.get("your_turn"):
            frame = frame["your_turn"]
        if frame["type"] == "your_turn" and frame["turn_id"] not in seen:
            seen.add(frame["turn_id"])
            yield frame
        elif frame["type"] == "error":
            raise AssertionError(f"the server refused the test's move: {frame}")
        elif frame["type"] == "end":
            return


def _steps(page: Any) -> int:
    return int(page.evaluate("window.theater ? window.theater.story.steps.length : 0"))


def _watch(server: LiveServer, http: httpx.Client, open_page: Any, game: str,
           config: dict[str, Any], fill: str, seat: int, choose: Any,
           variant: str | None = None) -> tuple[Any, Any, str]:
    creator = account(http, f"{game}-creator")
    body: dict[str, Any] = {"game": game, "seed": 3, "pacing": False, "config": config,
                            "fill_with": fill}
    if variant:
        body["variant"] = variant
    res = http.post("/tables", headers=creator, json=body)
    assert res.status_code == 201, res.text
    tid = res.json()["id"]
    joined = http.post(f"/tables/{tid}/join", headers=account(http, f"{game}-me"),
                       json={"kind": "remote", "seat": seat, "name": "the-test"}).json()
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{server.url}/theater?table={tid}")
    page.wait_for_selector("body[data-ready=waiting]")
    assert page.locator("[data-testid=not-started]").is_visible()
    ws_url = server.url.replace("http://", "ws://")
    with connect(f"{ws_url}/ws/play?table={tid}&seat={seat}&token={joined['token']}") as ws:
        http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
        stages: list[str] = []
        for n, turn in enumerate(_turns(ws)):
            if n:
                # the previous round is on the page (its step opened, its stage redrawn)
                try:
                    page.wait_for_function("n => window.theater.story.steps.length > n", arg=n,
                                           timeout=30_000)
                except Exception:
                    raise AssertionError(f"round {n} never reached the page; errors: {p.errors}, "
                                         f"steps {_steps(page)}") from None
                page.wait_for_timeout(50)
                stages.append(page.locator("[data-testid=stage]").inner_text())
                assert page.locator("[data-testid=live]").count() == 1
            ws.send(json.dumps({"type": "move", "turn_id": turn["turn_id"],
                                **choose(turn["legal_actions"])}))
    assert len(stages) >= 2 and len(set(stages)) == len(stages), "a round left the stage unchanged"
    # at the end the page swaps the live fold for the table's full replay: read its end card
    page.wait_for_selector("body[data-ready=replay]", timeout=30_000)
    page.wait_for_selector("[data-testid=endcard]")
    return p, http.get(f"/tables/{tid}/results").json(), tid


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.games import registry
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    registry.register(TALLY)
    db = tmp_path_factory.mktemp("live") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    try:
        with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
            live.http = http  # type: ignore[attr-defined]
            yield live
    finally:
        registry._loaded.pop(TALLY.name, None)  # other modules see the installed games only


def test_live_ledger_table(server: Any, open_page: Any) -> None:
    p, res, _ = _watch(server, server.http, open_page, "ledger", {"rounds": 4}, "mirror", 2,
                       _ledger_move, variant="quickfire")
    for seat in range(8):
        row = p.page.locator(f"[data-testid=final-{seat}]")
        assert float(row.locator("[data-field=scores]").inner_text()) == res["scores"][seat]
    assert p.errors == []


def test_live_commons_table(server: Any, open_page: Any) -> None:
    p, res, _ = _watch(server, server.http, open_page, "commons", {"rounds": 4}, "steward", 1,
                       _commons_move, variant="cleanup")
    for seat in range(6):
        row = p.page.locator(f"[data-testid=final-{seat}]")
        assert float(row.locator("[data-field=scores]").inner_text()) == \
            pytest.approx(res["scores"][seat], abs=5e-4)
    assert p.errors == []


def test_live_commons_shows_scores_before_the_end(server: Any, open_page: Any) -> None:
    """The live fold gets the scores from what spectators may see (the spectator state): they
    move during play, not only when the replay arrives."""
    creator = account(server.http, "cs-creator")
    tid = server.http.post("/tables", headers=creator, json={
        "game": "commons", "variant": "cleanup", "seed": 4, "pacing": False,
        "config": {"rounds": 3}, "fill_with": "steward"}).json()["id"]
    joined = server.http.post(f"/tables/{tid}/join", headers=account(server.http, "cs-me"),
                              json={"kind": "remote", "seat": 0, "name": "t"}).json()
    p = open_page(1440, 900)
    ws_url = server.url.replace("http://", "ws://")
    with connect(f"{ws_url}/ws/play?table={tid}&seat=0&token={joined['token']}") as ws:
        server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
        turns = _turns(ws)
        first = next(turns)
        p.page.goto(f"{server.url}/theater?table={tid}")
        ws.send(json.dumps({"type": "move", "turn_id": first["turn_id"],
                            **_commons_move(first["legal_actions"])}))
        next(turns)  # round 2 is open: round 1 has scores
        p.page.wait_for_function("""() => [...document.querySelectorAll('[data-field=scores]')]
            .some((td) => Number(td.textContent) > 0)""")
        assert p.page.locator("[data-testid=endcard]").count() == 0
    assert p.errors == []


def test_live_generic_table(server: Any, open_page: Any) -> None:
    """A game whose descriptor has no viewer module: timeline, scores and per-seat feeds."""
    p, res, _ = _watch(server, server.http, open_page, "tally", {"rounds": 3}, "twos", 1,
                       _tally_move)
    page = p.page
    for seat, score in enumerate(res["scores"]):
        row = page.locator(f"[data-testid=final-{seat}]")
        assert float(row.locator("[data-field=score]").inner_text()) == score
    # ties share a rank on the podium: seats 0 and 2 both play "twos"
    assert res["scores"][0] == res["scores"][2]
    ranks = page.locator("[data-testid=podium] [data-rank]").evaluate_all(
        "ds => ds.map(d => Number(d.dataset.rank))")
    assert ranks.count(ranks[-1]) >= 2 or ranks.count(ranks[0]) >= 2
    page.keyboard.press("Escape")
    assert page.locator("[data-testid=timeline] li").count() == 3
    assert "value 3" in page.locator("[data-testid=seat-feed-1]").inner_text()
    assert p.errors == []


def test_generic_replay(server: Any, open_page: Any, tmp_path: Path) -> None:
    """The generic renderer on a finished table's replay: the scrubber steps through rounds."""
    from .replays import tally_replay

    path, doc = tally_replay(tmp_path / "tally.json")
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{server.url}/theater")
    page.set_input_files("#file", str(path))
    page.wait_for_selector("body[data-ready=replay]")
    page.keyboard.press("ArrowRight")
    assert page.locator("[data-testid=timeline] li.now").inner_text().endswith("1")
    page.keyboard.press("End")
    page.wait_for_selector("[data-testid=endcard]")
    for seat, score in enumerate(doc["results"]["scores"]):
        row = page.locator(f"[data-testid=final-{seat}]")
        assert float(row.locator("[data-field=score]").inner_text()) == score
        # an event's per-seat list (here `round_end`'s scores) is each seat's own line too:
        # its feed tells its part of every round, not only events that name one seat
        feed = page.locator(f"[data-testid=seat-feed-{seat}]").inner_text()
        assert f"scores {fmt(score)}" in feed, feed
    assert p.errors == []


def fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def test_a_late_spectators_upkeep_chart_holds_no_made_up_rounds(server: Any,
                                                                  open_page: Any) -> None:
    """A spectator who opens a live Commons table after some rounds cannot know their upkeep
    (the public ledger is a running total): those rounds are left blank, not drawn as 0 with
    the whole total lumped into one round; every round drawn matches the replay."""
    creator = account(server.http, "late-creator")
    tid = server.http.post("/tables", headers=creator, json={
        "game": "commons", "variant": "cleanup", "seed": 6, "pacing": False,
        "config": {"rounds": 5}, "fill_with": "steward"}).json()["id"]
    joined = server.http.post(f"/tables/{tid}/join", headers=account(server.http, "late-me"),
                              json={"kind": "remote", "seat": 0, "name": "t"}).json()
    p = open_page(1440, 900)
    tail = "window.theater.story.tail.state"
    ws_url = server.url.replace("http://", "ws://")
    with connect(f"{ws_url}/ws/play?table={tid}&seat=0&token={joined['token']}") as ws:
        server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
        turns = _turns(ws)
        for n, turn in enumerate(turns):
            if n == 3:  # rounds 1-3 played unwatched: the spectator arrives
                p.page.goto(f"{server.url}/theater?table={tid}")
                p.page.wait_for_function(
                    f"() => window.theater?.story && {tail}.ledgerRounds === 3")
            if n == 4:  # round 4 seen from its start to its end
                p.page.wait_for_function(f"() => {tail}.ledgerRounds === 4")
                live = p.page.evaluate(f"{tail}.series.maintenance")
                assert p.page.locator("[data-testid=effort-unknown]").is_visible()
            ws.send(json.dumps({"type": "move", "turn_id": turn["turn_id"],
                                **_commons_move(turn["legal_actions"])}))
    replay = server.http.get(f"/tables/{tid}/replay").json()
    truth = {e["r"]: sum(e["effort"]) for e in replay["events"] if e["kind"] == "resolve"}
    assert len(live) == 4 and live[3] == truth[3], (live, truth)
    assert all(v is None or v == truth[r] for r, v in enumerate(live)), (live, truth)
    assert p.errors == []


def test_a_late_spectator_of_a_long_dilemma_table_sees_the_true_standings(
        server: Any, open_page: Any) -> None:
    """A spectator joining late gets the last 500 events, not the table's whole history: the
    standings must still be the table's (from its `tournament_standings` and the spectator
    state), not the points of the rounds that happened to be in the tail, and the chart's
    rounds are the table's rounds."""
    creator = account(server.http, "long-creator")
    tid = server.http.post("/tables", headers=creator, json={
        "game": "dilemma", "seed": 2, "pacing": False, "fill_with": "always_defect",
        "config": {"seats": 8, "rounds_total": 30, "turn_deadline_ms": 90_000}}).json()["id"]
    joined = server.http.post(f"/tables/{tid}/join", headers=account(server.http, "long-me"),
                              json={"kind": "remote", "seat": 0, "name": "t"}).json()
    p = open_page(1440, 900)
    page = p.page
    ws_url = server.url.replace("http://", "ws://")
    with connect(f"{ws_url}/ws/play?table={tid}&seat=0&token={joined['token']}") as ws:
        server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
        for turn in _turns(ws):
            if turn["visible_state"]["round"] == 25:  # 24 rounds: 28 meetings each, > 500 events
                break
            ws.send(json.dumps({"type": "move", "turn_id": turn["turn_id"],
                                "action": "cooperate"}))
            time.sleep(0.03)  # under the socket's frame rate (50 a second)
        truth = {s["seat"]: s["points"] for s in
                 server.http.get(f"/tables/{tid}/spectator").json()["standings"]}
        page.goto(f"{server.url}/theater?table={tid}")
        page.wait_for_selector("body[data-ready=live]")
        page.wait_for_function("() => window.theater?.story?.events >= 500")
        page.wait_for_timeout(300)  # the spectator state's fold
        shown = {seat: int(page.locator(f"[data-testid=score-{seat}] [data-field=points]")
                           .inner_text()) for seat in range(8)}
        assert shown == truth
        history = page.evaluate("window.theater.story.tail.state.history")
        assert len(history) == 24 and history[-1] == [truth[s] for s in range(8)], history[-1]
        assert history[0] is None  # round 1 was not in the tail: blank, not round 1's points
    assert p.errors == []


def test_a_late_spectators_commons_charts_keep_the_tables_round_numbers(
        server: Any, open_page: Any) -> None:
    """Joining a long Commons table late (the last 500 events only), the charts' rounds are
    the table's: the rounds before the first one seen are blank, not the seen ones renumbered
    from 1."""
    creator = account(server.http, "lc-creator")
    tid = server.http.post("/tables", headers=creator, json={
        "game": "commons", "variant": "cleanup", "seed": 7, "pacing": False,
        "config": {"rounds": 60, "num_players": 12, **SLOW_SEAT},
        "fill_with": "steward"}).json()["id"]
    joined = server.http.post(f"/tables/{tid}/join", headers=account(server.http, "lc-me"),
                              json={"kind": "remote", "seat": 0, "name": "t"}).json()
    p = open_page(1440, 900)
    page = p.page
    ws_url = server.url.replace("http://", "ws://")
    with connect(f"{ws_url}/ws/play?table={tid}&seat=0&token={joined['token']}") as ws:
        server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
        for turn in _turns(ws):
            if turn["visible_state"]["round"] == 50:  # far more than 500 events
                break
            ws.send(json.dumps({"type": "move", "turn_id": turn["turn_id"],
                                **_commons_move(turn["legal_actions"])}))
        page.goto(f"{server.url}/theater?table={tid}")
        page.wait_for_selector("body[data-ready=live]")
        page.wait_for_function("() => window.theater?.story?.events >= 500")
        series = page.evaluate("window.theater.story.tail.state.series")
    assert len(series["resource"]) == 50, series
    assert series["resource"][0] is None and series["resource"][-1] is not None, series
    assert p.errors == []


def test_a_table_called_off_while_watched_says_so(server: Any, open_page: Any) -> None:
    """A live table the operator aborts stopped at "● live" with a picture that no longer
    moved: the Theater says it was called off, and why, and drops the live badge."""
    creator = account(server.http, "off-creator")
    tid = server.http.post("/tables", headers=creator, json={
        "game": "dilemma", "seed": 2, "pacing": False, "fill_with": "always_defect",
        "config": {"seats": 3, "rounds_total": 5, "turn_deadline_ms": 90_000}}).json()["id"]
    joined = server.http.post(f"/tables/{tid}/join", headers=account(server.http, "off-me"),
                              json={"kind": "remote", "seat": 0, "name": "t"}).json()
    p = open_page(1280, 900)
    page = p.page
    ws_url = server.url.replace("http://", "ws://")
    with connect(f"{ws_url}/ws/play?table={tid}&seat=0&token={joined['token']}") as ws:
        server.http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
        next(_turns(ws))
        page.goto(f"{server.url}/theater?table={tid}")
        page.wait_for_selector("body[data-ready=live]")
        res = server.http.post(f"/tables/{tid}/abort",
                               headers={"Authorization": f"Bearer {OPERATOR_KEY}"})
        assert res.status_code == 200, res.text
        notice = page.locator("[data-testid=called-off]")
        notice.wait_for(timeout=30_000)
        assert "called off" in notice.inner_text() and "operator" in notice.inner_text()
        assert page.locator("[data-testid=live]").count() == 0
        assert page.evaluate("document.body.dataset.ready") == "aborted"
    assert p.errors == []
