"""A person, in Chromium, from sign-up to the end of a game: sign up through the page, create a
table against the baselines from the Lobby's form, play every turn by clicking the visible
controls only (no JSON typed, no API key pasted), read a plain-language "what happened" line
for every round, and reach the end banner with the score the stored results give. Also: the
Lobby marks the seats people hold; a Commons retry turn keeps a half-filled form; axe-core
finds nothing serious on the new pages at 360 and 1440 px and none of them scrolls sideways.
Screenshots of each game's seat view at both widths go to $COGLEAGUE_SCREENSHOT_DIR."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer
from .test_audit import audit, overflow

pytestmark = pytest.mark.browser

PASSWORD = "a long enough password"
MAX_TURNS = 40
GAMES = {  # game: (variant, options typed into the Lobby's form, rounds, a choice to click)
    "dilemma": ("standard", {"rounds_total": "2"}, 2, "Defect (D)"),
    "ledger": ("quickfire", {"rounds": "4"}, 4, None),
    "commons": ("cleanup", {"rounds": "3", "min_round_seconds": "0"}, 3, None),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("people") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def sign_up(page: Any, url: str, name: str) -> None:
    """Through the sign-up page, then on to the Lobby."""
    page.goto(f"{url}/signup")
    page.wait_for_selector("body[data-ready=signup]")
    page.fill("[data-testid=name]", name)
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=submit]")
    assert page.locator("[data-testid=api-key]").inner_text().startswith("clk_")
    page.click("[data-testid=continue]")
    page.wait_for_selector("body[data-ready=lobby]")


def create_from_lobby(page: Any, game: str, variant: str, options: dict[str, str]) -> str:
    """The Lobby's "Create a table": the game, its variant, baselines for the empty seats, a
    seat for me; then the Play page starts it. Returns the table id."""
    page.click("#maker-h")
    page.select_option("[data-testid=mk-game]", game)
    page.select_option("[data-testid=mk-variant]", variant)
    page.click("[data-testid=maker] summary")
    for key, value in options.items():
        page.fill(f"[data-testid=maker] [data-option={key}]", value)
    page.click("[data-testid=mk-create]")
    page.wait_for_selector("body[data-ready=play]")
    match = re.search(r"table=(t_[0-9a-f]+)", page.url)
    assert match, page.url
    return match.group(1)


def play_to_the_end(page: Any, choice: str | None, shoot: Any = None) -> int:
    """Answer every turn by clicking: a choice where the game offers one, then "Send"."""
    seen, moves = "", 0
    for _ in range(MAX_TURNS):
        page.wait_for_function("""(last) => document.body.dataset.ended === '1'
            || (document.body.dataset.turn && document.body.dataset.turn !== last)""", arg=seen)
        if page.evaluate("document.body.dataset.ended") == "1":
            break
        seen = page.evaluate("document.body.dataset.turn")
        assert page.title().startswith("▶ Your turn")
        assert page.evaluate("document.activeElement.closest('[data-testid=move-form]') !== null")
        view = page.locator("[data-testid=view]").inner_text()
        assert "{" not in view and "null" not in view and "undefined" not in view, view
        if shoot is not None and moves == 1:
            shoot()
        if choice is not None:
            page.get_by_label(choice).check()
        page.click("[data-testid=send]")
        moves += 1
        page.wait_for_function("""(last) => /Move (received|sent)/.test(document.querySelector(
            '[data-testid=status]').textContent) || document.body.dataset.ended === '1'
            || document.body.dataset.turn !== last""", arg=seen)
    page.wait_for_selector("[data-testid=endcard]")
    return moves


@pytest.mark.parametrize("game", list(GAMES))
def test_a_person_signs_up_and_plays_a_whole_game(server: Any, open_page: Any, shots: Path,
                                                  game: str) -> None:
    variant, options, rounds, choice = GAMES[game]
    p = open_page(1440, 900)
    page = p.page
    sign_up(page, server.url, f"{game}-player")
    tid = create_from_lobby(page, game, variant, options)

    def shoot() -> None:
        for width in (1440, 360):
            page.set_viewport_size({"width": width, "height": 900})
            page.wait_for_timeout(100)
            assert overflow(page) <= 0, f"/play scrolls sideways at {width} px"
            page.screenshot(path=str(shots / f"play-{game}-{width}.png"), full_page=True)
        assert audit(page) == []
        page.set_viewport_size({"width": 1440, "height": 900})

    moves = play_to_the_end(page, choice, shoot)
    assert moves >= rounds
    lines = page.locator("[data-testid=happened]").all_inner_texts()
    for r in range(1, rounds + 1):  # a plain sentence for every round, counted from 1
        assert any(line.startswith(f"Round {r}") for line in lines), (r, lines)
    assert not any(re.search(r"null|undefined|\{|\d\.\d{4}", line) for line in lines), lines
    assert not page.locator("[data-testid=happened]", has_text="Round 0").count()
    results = server.http.get(f"/tables/{tid}/results").json()
    standing = page.locator("[data-testid=end-standing]")
    score = results["scores"][0]
    assert float(standing.get_attribute("data-score")) == pytest.approx(round(score, 3))
    assert "You finished" in standing.inner_text()
    assert page.locator("[data-testid=play-again]").is_visible()
    for width in (1440, 360):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(100)
        assert overflow(page) <= 0, f"the end banner scrolls sideways at {width} px"
    assert p.errors == []


def test_the_lobby_marks_the_seats_people_hold(server: Any, open_page: Any) -> None:
    p = open_page(1440, 900)
    page = p.page
    sign_up(page, server.url, "lobby-person")
    page.click("#maker-h")
    page.select_option("[data-testid=mk-game]", "dilemma")
    page.select_option("[data-testid=mk-fill]", "")  # wait for people
    page.uncheck("[data-testid=mk-sit]")
    page.click("[data-testid=mk-create]")
    status = page.locator("[data-testid=maker] [role=status]")
    status.wait_for()
    tid = re.search(r"t_[0-9a-f]+", status.inner_text()).group(0)  # type: ignore[union-attr]
    card = page.locator(f"[data-testid=table-{tid}]")
    card.locator("[data-testid=take-seat]").click()
    page.wait_for_selector("body[data-ready=play]")
    page.goto(f"{server.url}/")
    card = page.locator(f"[data-testid=table-{tid}]")
    card.locator("[data-person='1']").wait_for()
    assert card.locator("[data-person='1']").count() == 1
    assert "person" in card.locator("[data-testid=seat-0]").inner_text()
    assert card.locator("[data-testid=start-table]").is_visible()  # made in this browser
    assert p.errors == []


def test_a_commons_retry_keeps_what_the_person_typed(server: Any, open_page: Any) -> None:
    """The first attempt's deadline passes with a half-filled form; the retry turn (same turn,
    a new deadline) arrives and the form still holds what was typed."""
    p = open_page(1440, 900)
    page = p.page
    sign_up(page, server.url, "slow-person")
    create_from_lobby(page, "commons", "cleanup", {"rounds": "1", "decision_timeout_seconds": "3",
                                                   "round_seconds": "30"})
    page.wait_for_selector("[data-testid=move-form]")
    form = page.locator("[data-testid=move-form]")
    form.get_by_label(re.compile("^Harvest")).fill("2")
    form.get_by_label(re.compile("^Chat")).fill("half a thought")
    page.wait_for_function("document.body.dataset.retries === '1'", timeout=20_000)
    assert form.get_by_label(re.compile("^Harvest")).input_value() == "2"
    assert form.get_by_label(re.compile("^Chat")).input_value() == "half a thought"
    assert page.locator("[data-testid=hint]").is_visible()
    page.click("[data-testid=send]")
    page.wait_for_selector("[data-testid=endcard]", timeout=60_000)
    assert p.errors == []


PAGES = ("/signin", "/signup", "/me", "/", "/docs", "/protocol", "/rules/dilemma")


@pytest.mark.parametrize("width", [360, 1440])
def test_the_new_pages_pass_axe_and_fit(server: Any, open_page: Any, width: int) -> None:
    p = open_page(width, 900)
    page = p.page
    sign_up(page, server.url, f"auditor-{width}")
    for path in PAGES:
        page.goto(f"{server.url}{path}", wait_until="networkidle")
        if path == "/docs":  # offline: every asset from this server, the operations drawn
            page.wait_for_selector("body[data-ready=docs]")
            page.wait_for_selector("#operations-default-create_table_tables_post")
        assert page.evaluate("document.documentElement.lang") == "en", path
        assert page.title(), path
        assert audit(page) == [], path
        assert overflow(page) <= 0, f"{path} scrolls sideways at {width} px"
        if path == "/docs":
            page.click("#operations-default-create_table_tables_post .opblock-summary-control")
            page.wait_for_selector(".body-param__example")
            assert audit(page) == [], "/docs with an operation open"
    assert p.errors == []


def test_docs_needs_nothing_from_another_host(server: Any, open_page: Any) -> None:
    p = open_page(1440, 900)
    hosts: set[str] = set()
    p.page.on("request", lambda r: hosts.add(r.url.split("/")[2]))
    p.page.goto(f"{server.url}/docs", wait_until="networkidle")
    p.page.wait_for_selector("#operations-default-create_table_tables_post")
    assert hosts == {server.url.split("/")[2]}


def test_play_now_is_one_click_per_game(server: Any, open_page: Any, shots: Path) -> None:
    """The Lobby's "play against the baselines now": one click makes a table for people, seats
    the person and starts it; the first turn arrives with the game's human deadline."""
    p = open_page(1440, 900)
    page = p.page
    sign_up(page, server.url, "one-click")
    for width in (1440, 360):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(100)
        assert overflow(page) <= 0, f"the Lobby scrolls sideways at {width} px"
        page.screenshot(path=str(shots / f"lobby-signed-in-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.click("[data-testid=play-now-dilemma]")
    page.wait_for_selector("[data-testid=move-form]")
    tid = re.search(r"table=(t_[0-9a-f]+)", page.url).group(1)  # type: ignore[union-attr]
    table = server.http.get(f"/tables/{tid}").json()
    assert table["state"] == "running"
    assert table["config"]["turn_deadline_ms"] == 30_000  # the dilemma's human deadline
    assert [s["person"] for s in table["seats"]] == [True, False, False, False]
    left = int(re.search(r"(\d+) s left", page.locator("[data-testid=deadline]").inner_text())
               .group(1))  # type: ignore[union-attr]
    assert 20 < left <= 30
    assert p.errors == []
