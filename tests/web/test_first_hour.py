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
from .test_people import PASSWORD, sign_up

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


def test_the_lobby_leads_back_to_the_seat_this_browser_holds(server: Any, browser: Any,
                                                              open_page: Any) -> None:
    """Mid-game, a person follows the header's Lobby link: the card of their running table
    must lead back to their seat, not only to watching it. Signed in on another device (no
    seat kept there), the card offers to take a person's seat back; signed out, it does not."""
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "wanderer")
    page.click("[data-testid=play-now-dilemma]")
    page.wait_for_selector("body[data-ready=play]")
    page.wait_for_selector("[data-testid=send]")
    tid = re.search(r"table=(t_[0-9a-f]+)", page.url).group(1)  # type: ignore[union-attr]
    page.click("header nav a[data-nav=lobby]")
    card = page.locator(f"[data-testid=table-{tid}]")
    card.wait_for()
    back = card.get_by_role("link", name=re.compile("back to my seat", re.I))
    assert back.count() == 1, card.inner_text()
    assert audit(page) == [] and overflow(page) <= 0
    back.click()
    page.wait_for_selector("[data-testid=send]")  # the same seat, its turn still open
    assert page.url.endswith(f"/play?table={tid}")

    other = open_page(360, 740)  # the same person on another device: no seat kept there
    other.page.goto(f"{server.url}/signin")
    other.page.wait_for_selector("body[data-ready=signin]")
    other.page.fill("[data-testid=name]", "wanderer")
    other.page.fill("[data-testid=password]", PASSWORD)
    other.page.click("[data-testid=submit]")
    other.page.wait_for_selector("body[data-ready=lobby]")
    card = other.page.locator(f"[data-testid=table-{tid}]")
    card.wait_for()
    take = card.get_by_role("link", name=re.compile("take (it|your seat) back", re.I))
    assert take.count() == 1, card.inner_text()
    take.click()
    other.page.wait_for_selector("[data-testid=reclaim-seat]")

    stranger = open_page(360, 740)  # signed out: only watching
    stranger.page.goto(f"{server.url}/")
    card = stranger.page.locator(f"[data-testid=table-{tid}]")
    card.wait_for()
    assert card.get_by_role("link", name=re.compile("seat", re.I)).count() == 0
    assert p.errors == [] and other.errors == [] and stranger.errors == []


def test_standings_of_one_episode_say_why_there_is_no_interval(tmp_path: Any,
                                                                open_page: Any) -> None:
    """The first finished table on a server: one episode, so no bootstrap interval can be
    drawn. Each such cell says why in words, never a bare "–"."""
    from fastapi import FastAPI

    from cogleague.league.store import record_episode
    from cogleague.web import routes
    from cogleague.web.standings import STORE_URL_STATE

    url = f"sqlite:///{tmp_path / 'league.db'}"
    record_episode(url, game="dilemma", variant=None, seed=1, table_id="t1",
                   policy_names=["tft", "defector", "pavlov"],
                   results={"scores": [10, 4, 7], "reason": "complete"})
    app = FastAPI()
    app.include_router(routes.router)
    setattr(app.state, STORE_URL_STATE, url)
    with LiveServer(app) as server:
        p = open_page(1440, 900)
        page = p.page
        page.goto(f"{server.url}/observatory?game=dilemma")
        page.wait_for_selector("[data-testid=standings-dilemma]")
        cells = page.locator("#standings td").all_inner_texts()
        assert cells and "–" not in [c.strip() for c in cells], cells
        assert any("2 episodes" in c for c in cells), cells
        assert audit(page) == [] and overflow(page) <= 0
        assert p.errors == []


SCORED = """() => [...document.querySelectorAll('[data-testid^=ledger-] [data-field=scores]')]
    .some((c) => Number(c.textContent) > 0)"""


def test_a_live_commons_table_shows_no_false_zero_under_each_cog(server: Any,
                                                                 open_page: Any) -> None:
    """Watching Commons live, a round's per-cog gains are restricted (the watch stream drops
    them): each cog's label must not claim a gain of 0 while the ledger beside it shows the
    points it took. It shows what a spectator may know: the cog's score. And "What happened"
    tells each round's end, not only the table's opening line, for the whole game."""
    import json

    from websockets.sync.client import connect

    http = server.http
    creator = account(http, "commons-live-host")
    res = http.post("/tables", headers=creator, json={
        "game": "commons", "seed": 3, "pacing": False, "config": {"rounds": 4},
        "fill_with": "steward"})
    assert res.status_code == 201, res.text
    tid = res.json()["id"]
    joined = http.post(f"/tables/{tid}/join", headers=account(http, "commons-live-me"),
                       json={"kind": "remote", "seat": 0, "name": "the-test"}).json()
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{server.url}/theater?table={tid}")
    page.wait_for_selector("body[data-ready=waiting]")
    ws_url = server.url.replace("http://", "ws://")
    with connect(f"{ws_url}/ws/play?table={tid}&seat=0&token={joined['token']}") as ws:
        http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
        turns = 0
        while turns < 3:
            frame = json.loads(ws.recv(timeout=30))
            if frame["type"] == "snapshot" and frame.get("your_turn"):
                frame = frame["your_turn"]
            if frame["type"] != "your_turn":
                continue
            turns += 1
            if turns == 3:  # two rounds played: the stage has its scores (the ledger's points)
                page.wait_for_function(SCORED, timeout=30_000)
                page.wait_for_timeout(300)
                cogs = page.locator("[data-testid^=cog-]")
                assert cogs.count() == 6
                for k in range(cogs.count()):
                    texts = cogs.nth(k).locator("text").all_text_contents()
                    title = cogs.nth(k).locator("title").text_content() or ""
                    score = re.search(r"score (\S+)$", title).group(1)  # type: ignore[union-attr]
                    assert float(score) > 0, title
                    assert texts[-1] == f"{score} pts", (texts, title)
                # what happened says each round that ended, not only the opening line
                feed = page.locator("[data-testid=feed]").inner_text()
                assert re.search(r"Round 1 ended with [\d.]+ apples left", feed), feed
            ws.send(json.dumps({"type": "move", "turn_id": frame["turn_id"], "harvest": 1,
                                "clean": 1}))
    assert p.errors == []


def test_an_empty_lobby_says_how_a_person_makes_a_table(tmp_path: Any, open_page: Any) -> None:
    """A new server has no open table. Signed out, the Lobby offered "Create one above
    (signed in), or with POST /tables" — an API call, and no form above; it must say to sign
    in (with the link), and, signed in, where the form is."""
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    app = create_app(Settings(db_url=f"sqlite:///{tmp_path / 'empty.db'}",
                              operator_key=OPERATOR_KEY))
    with LiveServer(app) as live:
        p = open_page(360, 740)
        page = p.page
        page.goto(f"{live.url}/")
        page.wait_for_selector("body[data-ready=lobby]")
        empty = page.locator("[data-testid=section-open] p.muted")
        text = empty.inner_text()
        assert "POST" not in text and "sign in" in text.lower(), text
        assert empty.locator("a[href^='/signin']").count() == 1
        assert audit(page) == [] and overflow(page) <= 0
        sign_up(page, live.url, "first-comer")
        text = page.locator("[data-testid=section-open] p.muted").inner_text()
        assert "POST" not in text and "Create a table" in text, text
        assert p.errors == []


def test_the_dilemma_replay_says_cooperation_as_a_percentage_everywhere(server: Any,
                                                                        open_page: Any) -> None:
    """The end card said "C rate 1" beside the standings' "100%", and the standings said
    "–" for promises kept where the end card said "0/0": one reading of each, in both."""
    tid = finished_table(server, "percent-host", rounds=3)
    results = server.http.get(f"/tables/{tid}/results").json()
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{server.url}/theater?table={tid}")
    page.wait_for_selector("body[data-ready=replay]")
    page.keyboard.press("End")
    page.wait_for_selector("[data-testid=endcard]")
    for seat in results["seats"]:
        final = page.locator(f"[data-testid=final-{seat['seat']}]")
        side = page.locator(f"[data-testid=score-{seat['seat']}]")
        want = f"{round(100 * seat['cooperation_rate'], 1):g}%"
        assert final.locator("[data-field=cooperation_rate]").inner_text() == want
        cells = [c.strip() for c in side.locator("td").all_inner_texts()]
        assert want in cells and "–" not in cells, cells
    assert p.errors == []


@pytest.mark.parametrize("width", [360, 1440])
def test_the_empty_theater_is_laid_out_cleanly(server: Any, open_page: Any, width: int) -> None:
    """The Theater from the header, nothing chosen yet: the drop zone (an inline label with
    padding) was drawn over the sentence above it, and the hidden scrubber still showed as an
    empty bar across the page."""
    p = open_page(width, 800)
    page = p.page
    page.goto(f"{server.url}/theater")
    page.wait_for_selector("#drop")
    page.wait_for_timeout(300)
    text = page.locator("#theater .panel > p").bounding_box()
    drop = page.locator("#drop").bounding_box()
    assert text and drop
    assert drop["y"] >= text["y"] + text["height"], (text, drop)
    assert not page.locator("#scrubber").is_visible()
    assert audit(page) == [] and overflow(page) <= 0
    assert p.errors == []


def test_a_ledger_seat_after_one_meeting_reads_in_the_singular(server: Any,
                                                               open_page: Any) -> None:
    """Round 2 of every Ledger game said "1 kind / 0 harsh in 1 meetings"."""
    p = open_page(1000, 900)
    page = p.page
    sign_up(page, server.url, "ledger-counter")
    page.click("[data-testid=play-now-ledger]")
    page.wait_for_selector("[data-testid=send]")
    page.click("[data-testid=send]")
    page.wait_for_function("/Round 2 of/.test(document.querySelector('[data-testid=view]')"
                           "?.innerText ?? '')")
    text = page.inner_text("[data-testid=view]")
    assert "in 1 meeting," in text and "1 meetings" not in text, text
    assert p.errors == []


def test_a_commons_round_ends_in_the_games_own_words(server: Any, open_page: Any) -> None:
    """The seat view speaks of apples; "what happened" said "62.2 of the resource left"."""
    p = open_page(1000, 900)
    page = p.page
    sign_up(page, server.url, "orchard-keeper")
    page.click("[data-testid=play-now-commons]")
    page.wait_for_selector("[data-testid=send]")
    page.click("[data-testid=send]")
    page.wait_for_function("/Round 1 ended/.test(document.querySelector("
                           "'[data-testid=last-round]')?.innerText ?? '')")
    text = page.inner_text("[data-testid=last-round]")
    assert re.search(r"Round 1 ended with [\d.]+ apples left\.", text), text
    assert p.errors == []


def test_a_called_off_table_says_why_and_offers_no_replay(server: Any, open_page: Any) -> None:
    """A table nobody started in time is aborted. The Theater said "was aborted (aborted)",
    and the Play page offered "Watch the replay →" to a table that has none."""
    creator = account(server.http, "abort-host")
    tid = server.http.post("/tables", headers=creator, json={
        "game": "dilemma", "seed": 1, "pacing": False}).json()["id"]
    res = server.http.post(f"/tables/{tid}/abort", json={"detail": "start timeout"},
                           headers={"Authorization": f"Bearer {OPERATOR_KEY}"})
    assert res.status_code == 200, res.text
    assert server.http.get(f"/tables/{tid}/replay").status_code == 404
    p = open_page(360, 740)
    page = p.page
    page.goto(f"{server.url}/theater?table={tid}")
    page.wait_for_selector("body[data-ready=error]")
    text = page.inner_text("main")
    assert "(aborted)" not in text and "start" in text and "deadline" in text, text
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=error]")
    text = page.inner_text("#play")
    assert "deadline" in text, text
    assert page.get_by_role("link", name=re.compile("replay|watch", re.I)).count() == 0
    assert page.get_by_role("link", name=re.compile("lobby", re.I)).count() >= 1
    assert audit(page) == [] and overflow(page) <= 0
    assert p.errors == []


def test_the_play_link_in_the_header_leads_back_to_the_game(server: Any,
                                                            open_page: Any) -> None:
    """Mid-game, a person clicks "Play" in the header (they are playing, after all): the page
    said only "pick a game in the Lobby". It must lead back to the table they are seated at."""
    p = open_page(360, 740)
    page = p.page
    sign_up(page, server.url, "header-player")
    page.click("[data-testid=play-now-ledger]")
    page.wait_for_selector("[data-testid=send]")
    tid = re.search(r"table=(t_[0-9a-f]+)", page.url).group(1)  # type: ignore[union-attr]
    page.click("header nav a[data-nav=play]")
    page.wait_for_selector("body[data-ready=play]")
    back = page.get_by_role("link", name=re.compile("back to my seat", re.I))
    back.first.wait_for()
    assert back.count() == 1 and back.get_attribute("href") == f"/play?table={tid}"
    assert "Ledger" in page.inner_text("#play")
    assert audit(page) == [] and overflow(page) <= 0
    back.click()
    page.wait_for_selector("[data-testid=send]")
    fresh = open_page(360, 740)  # a browser seated nowhere: only the way to the Lobby
    fresh.page.goto(f"{server.url}/play")
    fresh.page.wait_for_selector("body[data-ready=play]")
    text = fresh.page.inner_text("#play")
    assert "Lobby" in text and "seat" in text and not re.search(r"\bnull\b", text), text
    assert fresh.page.locator("[data-testid=back-to-seat]").count() == 0
    assert p.errors == [] and fresh.errors == []


def test_a_table_id_in_a_heading_keeps_its_case(server: Any, open_page: Any) -> None:
    """Headings are set in capitals; the join form's "Take a seat · table t_…" showed the id as
    "T_F2AB…", which is not the table's id (a person reading it out or typing it gets it wrong)."""
    creator = account(server.http, "case-host")
    tid = server.http.post("/tables", headers=creator, json={
        "game": "dilemma", "seed": 1, "pacing": False}).json()["id"]
    p = open_page(360, 740)
    page = p.page
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    assert tid in page.locator("#play h2").first.inner_text()
    assert p.errors == []
