"""A game's end, turn and sign-up as a person meets them (Chromium, real server on loopback): a
table where everybody scored the same says the person tied; the score is in the game's own unit;
once the game is over the status line no longer waits for the others; the countdown follows the
turn, not the device's clock, and at 0 stops offering "Send"; each "what happened" line and a
new API key are announced to screen readers; after signing up by keyboard the focus is on what
the page now shows, not back at the top of the document."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account
from .test_audit import audit, overflow
from .test_people import PASSWORD

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("end") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def test_a_tie_is_told_and_the_game_over_status_waits_for_nobody(server: Any,
                                                                 open_page: Any) -> None:
    host = account(server.http, "tie-host")
    res = server.http.post("/tables", headers=host, json={
        "game": "dilemma", "seed": 4, "pacing": False,
        "config": {"seats": 3, "rounds_total": 1, "turn_deadline_ms": 120_000},
        "fill_with": "always_cooperate"})
    assert res.status_code == 201, res.text
    tid = res.json()["id"]
    key = account(server.http, "tie-person")["Authorization"].split()[1]
    p = open_page(360, 780)
    page = p.page
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    page.fill("[data-testid=key]", key)
    page.click("[data-testid=take-seat]")
    page.wait_for_selector("body[data-ready=play]")
    server.http.post(f"/tables/{tid}/start", headers=host).raise_for_status()
    seen = ""
    for _ in range(10):  # cooperate (the first choice) in every meeting, by keyboard
        page.wait_for_function("""(last) => document.body.dataset.ended === '1'
            || (document.body.dataset.turn && document.body.dataset.turn !== last)""", arg=seen)
        if page.evaluate("document.body.dataset.ended") == "1":
            break
        seen = page.evaluate("document.body.dataset.turn")
        page.locator("[data-testid=move-form] input").first.focus()
        page.keyboard.press("Enter")
        page.wait_for_function("""(last) => /Move (received|sent)/.test(document.querySelector(
            '[data-testid=status]').textContent) || document.body.dataset.ended === '1'
            || document.body.dataset.turn !== last""", arg=seen)
    page.wait_for_selector("body[data-ended='1']")
    results = server.http.get(f"/tables/{tid}/results").json()
    assert len({s["points"] for s in results["seats"]}) == 1  # everybody cooperated: a tie
    standing = page.locator("[data-testid=end-standing]").inner_text()
    assert re.search(r"\btied\b", standing), standing
    assert "with 2 others" in standing, standing
    status = page.locator("[data-testid=status]").inner_text()
    assert "Waiting for the others" not in status, status
    # the banner takes the turn's place, in the page's flow: it is not the Theater's end card
    # laid over the whole page, hiding what happened and the person's moves
    for panel in ("last-round", "moves"):
        hit = page.evaluate("""(id) => { const el = document.querySelector(`[data-testid=${id}]`);
            el.scrollIntoView(); const r = el.getBoundingClientRect();
            const top = document.elementFromPoint(r.left + r.width / 2, r.top + 4);
            return !!top && !top.closest('[data-testid=endcard]'); }""", panel)
        assert hit, f"the end banner covers {panel}"
    assert page.locator("[data-testid=endcard]").evaluate(
        "el => getComputedStyle(el).position") == "static"
    assert audit(page) == [] and overflow(page) == 0
    assert p.errors == []


def test_after_signing_up_by_keyboard_the_focus_is_on_the_welcome(server: Any,
                                                                   open_page: Any) -> None:
    p = open_page(360, 780)
    page = p.page
    page.goto(f"{server.url}/signup")
    page.wait_for_selector("body[data-ready=signup]")
    page.keyboard.type("focus-person")
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=signed-up]")
    inside = page.evaluate("!!document.activeElement.closest('[data-testid=signed-up]')")
    assert inside, page.evaluate("document.activeElement.outerHTML.slice(0, 80)")
    for _ in range(6):  # the way on is a few Tabs away, not the whole header
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.testid") == "continue":
            break
    else:
        pytest.fail("Tab from the welcome never reaches “Go and play”")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-ready=lobby]")
    assert audit(page) == [] and overflow(page) == 0
    assert p.errors == []


def test_the_countdown_follows_the_turn_not_the_devices_clock(server: Any,
                                                              open_page: Any) -> None:
    """A phone whose clock runs five minutes ahead of the server still counts a two-minute
    turn down from about two minutes (the turn's `deadline_ms`), not from "0 s left"."""
    host = account(server.http, "clock-host")
    res = server.http.post("/tables", headers=host, json={
        "game": "dilemma", "seed": 5, "pacing": False,
        "config": {"seats": 3, "rounds_total": 1, "turn_deadline_ms": 120_000},
        "fill_with": "always_cooperate"})
    assert res.status_code == 201, res.text
    tid = res.json()["id"]
    key = account(server.http, "clock-person")["Authorization"].split()[1]
    p = open_page(360, 780)
    page = p.page
    page.add_init_script("""(() => { const ahead = 5 * 60 * 1000, now = Date.now;
        Date.now = () => now() + ahead; })()""")
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    page.fill("[data-testid=key]", key)
    page.click("[data-testid=take-seat]")
    page.wait_for_selector("body[data-ready=play]")
    server.http.post(f"/tables/{tid}/start", headers=host).raise_for_status()
    page.wait_for_selector("[data-testid=move-form]")
    page.wait_for_timeout(600)  # a tick of the countdown
    text = page.locator("[data-testid=deadline]").inner_text()
    left = int(re.search(r"(\d+) s left", text).group(1))  # type: ignore[union-attr]
    assert 60 < left <= 120, text
    assert p.errors == []


@pytest.mark.parametrize(("game", "variant", "config", "fill", "unit"), [
    ("ledger", "quickfire", {"rounds": 4}, "mirror", "median"),
    ("dilemma", None, {"seats": 3, "rounds_total": 1}, "always_defect", "points")])
def test_the_end_banner_names_the_games_own_score(server: Any, open_page: Any, game: str,
                                                  variant: str | None, config: dict[str, Any],
                                                  fill: str, unit: str) -> None:
    """The banner's score is in the game's own unit (its descriptor's `score_label`): a Ledger
    seat's score is the median of its meetings' coins, not "points"."""
    from .test_people import play_to_the_end

    host = account(server.http, f"unit-host-{game}")
    body: dict[str, Any] = {"game": game, "seed": 6, "pacing": False, "config": config,
                            "fill_with": fill}
    if variant:
        body["variant"] = variant
    res = server.http.post("/tables", headers=host, json=body)
    assert res.status_code == 201, res.text
    tid = res.json()["id"]
    key = account(server.http, f"unit-person-{game}")["Authorization"].split()[1]
    p = open_page(360, 780)
    page = p.page
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    page.fill("[data-testid=key]", key)
    page.click("[data-testid=take-seat]")
    page.wait_for_selector("body[data-ready=play]")
    server.http.post(f"/tables/{tid}/start", headers=host).raise_for_status()
    play_to_the_end(page, None)
    standing = page.locator("[data-testid=end-standing]").inner_text()
    assert unit in standing, standing
    if unit != "points":
        assert "points" not in standing, standing
    assert p.errors == []


def test_what_happened_is_announced_to_a_screen_reader(server: Any, open_page: Any) -> None:
    """A person who plays by screen reader hears each new "what happened" line (a polite live
    region), not only "Your turn": otherwise the round's outcome is silent."""
    host = account(server.http, "sr-host")
    res = server.http.post("/tables", headers=host, json={
        "game": "dilemma", "seed": 7, "pacing": False,
        "config": {"seats": 3, "rounds_total": 2, "turn_deadline_ms": 120_000},
        "fill_with": "always_defect"})
    assert res.status_code == 201, res.text
    tid = res.json()["id"]
    key = account(server.http, "sr-person")["Authorization"].split()[1]
    p = open_page(360, 780)
    page = p.page
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    page.fill("[data-testid=key]", key)
    page.click("[data-testid=take-seat]")
    page.wait_for_selector("body[data-ready=play]")
    server.http.post(f"/tables/{tid}/start", headers=host).raise_for_status()
    for _ in range(6):  # send moves until the first round's outcome is in "what happened"
        page.wait_for_function("""() => document.querySelector('[data-testid=happened]')
            || (document.querySelector('[data-testid=send]') && !document.querySelector(
                '[data-testid=send]').disabled)""")
        if page.locator("[data-testid=happened]").count():
            break
        page.click("[data-testid=send]")
    newest = page.locator("[data-testid=happened]").first.inner_text()
    told = page.evaluate("""() => [...document.querySelectorAll('[aria-live]')]
        .filter((el) => !el.closest('[data-testid=last-round]'))
        .map((el) => el.textContent).join(' | ')""")
    assert newest in told, (newest, told)


def test_a_turn_whose_time_is_up_says_so_and_takes_no_more_moves(server: Any,
                                                                  open_page: Any) -> None:
    """When the countdown reaches 0 before a move was sent, the page says the time is up and
    stops offering "Send my move" (the server would only answer "too late"), instead of a
    live-looking form under "0 s left". The page's clock is moved on instead of waiting."""
    host = account(server.http, "late-host")
    res = server.http.post("/tables", headers=host, json={
        "game": "dilemma", "seed": 8, "pacing": False,
        "config": {"seats": 3, "rounds_total": 1, "turn_deadline_ms": 120_000},
        "fill_with": "always_defect"})
    assert res.status_code == 201, res.text
    tid = res.json()["id"]
    key = account(server.http, "late-person")["Authorization"].split()[1]
    p = open_page(360, 780)
    page = p.page
    page.add_init_script("""(() => { const now = Date.now; window.__ahead = 0;
        Date.now = () => now() + window.__ahead; })()""")
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    page.fill("[data-testid=key]", key)
    page.click("[data-testid=take-seat]")
    page.wait_for_selector("body[data-ready=play]")
    server.http.post(f"/tables/{tid}/start", headers=host).raise_for_status()
    page.wait_for_selector("[data-testid=move-form]")
    page.evaluate("window.__ahead = 121_000")
    page.wait_for_function("/time is up/i.test(document.querySelector("
                           "'[data-testid=status]').textContent)")
    assert page.locator("[data-testid=send]").is_disabled()
    assert audit(page) == [] and overflow(page) == 0
    assert p.errors == []


def test_a_new_api_key_is_announced(server: Any, open_page: Any) -> None:
    """"Make a new API key" puts the key (or what went wrong) in a status region: a screen
    reader user who pressed the button hears that it worked."""
    from .test_people import sign_up

    p = open_page(360, 780)
    page = p.page
    sign_up(page, server.url, "key-person")
    page.goto(f"{server.url}/me")
    page.wait_for_selector("body[data-ready=me]")
    page.locator("[data-testid=new-key]").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=confirm-new-key]:focus")  # said first what it retires
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=key-out] [data-testid=api-key]")
    live = page.evaluate("""() => { const el = document.querySelector('[data-testid=key-out]');
        return el.getAttribute('role') === 'status' || !!el.getAttribute('aria-live'); }""")
    assert live
    assert audit(page) == [] and overflow(page) == 0
