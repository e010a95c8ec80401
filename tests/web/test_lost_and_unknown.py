"""What a person sees when something is not there, goes away or is refused (Chromium, real
server on loopback): a link to a table, season or agent that does not exist says so in words —
without the request path — and the table pages lead back to the Lobby; a game or rules page that
does not exist is named instead of silently showing another; a seat, the Theater and the Lobby
whose server goes away say that it is out of reach and being retried, then carry on when it is
back; a kept seat the server refuses is told apart from a lost server; a session that ended
elsewhere asks to sign in again (not for an API key); a person's seat chip reads as two words."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account
from .test_audit import audit, overflow

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("lost") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


@pytest.mark.parametrize(("path", "ready"), [("/play?table=t_nope", "error"),
                                             ("/theater?table=t_nope", "error")])
def test_an_unknown_table_is_named_in_words_with_a_way_back(server: Any, open_page: Any,
                                                            path: str, ready: str) -> None:
    p = open_page(360, 780)
    page = p.page
    page.goto(f"{server.url}{path}")
    page.wait_for_selector(f"body[data-ready={ready}]")
    message = page.locator("main .error").inner_text()
    assert "t_nope" in message and "/tables/" not in message, message
    assert page.locator("main .error ~ * a[href='/'], main .error a[href='/']").count() == 1
    assert audit(page) == [] and overflow(page) == 0


@pytest.mark.parametrize(("path", "ready", "tab"), [
    ("/observatory?game=nope", "observatory", "[data-game]"),
    ("/rules?doc=nope", "rules", "[data-name]")])
def test_an_unknown_game_or_page_is_said_not_replaced(server: Any, open_page: Any, path: str,
                                                      ready: str, tab: str) -> None:
    p = open_page(360, 780)
    page = p.page
    page.goto(f"{server.url}{path}")
    page.wait_for_selector(f"body[data-ready={ready}]")
    notice = page.locator("[data-testid=not-found]")
    assert notice.count() == 1
    assert "“nope”" in notice.inner_text()
    assert "nope" in page.url  # the address still says what was asked for
    page.locator(f"#tabs {tab}").first.click()  # a tab still works, and the notice goes
    page.locator("[data-testid=not-found]").wait_for(state="detached")  # a rules page loads first
    assert "nope" not in page.url
    assert audit(page) == [] and overflow(page) == 0
    assert [e for e in p.errors if "404" not in e] == []


def test_a_seat_says_when_the_server_is_gone_and_carries_on(tmp_path: Any, open_page: Any) -> None:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path / "server.db"

    def serve(sock: Any = None) -> LiveServer:
        app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
        return LiveServer(app, sock)

    first = serve()
    with first, httpx.Client(base_url=first.url, timeout=30) as http:
        host = account(http, "lost-host")
        tid = http.post("/tables", headers=host, json={
            "game": "dilemma", "seed": 1, "pacing": False,
            "config": {"rounds_total": 2, "turn_deadline_ms": 120_000},
            "fill_with": "always_cooperate"}).json()["id"]
        key = account(http, "lost-person")["Authorization"].split()[1]
        p = open_page(360, 780)
        page = p.page
        page.goto(f"{first.url}/play?table={tid}")
        page.wait_for_selector("body[data-ready=join]")
        page.fill("[data-testid=key]", key)
        page.click("[data-testid=take-seat]")
        page.wait_for_selector("body[data-ready=play]")
        status = page.locator("[data-testid=status]")
        assert "lost" not in status.inner_text().lower()
        port = int(first.url.rsplit(":", 1)[1])
    # the server is gone: the seat says so (not a silent "Waiting for the table to start…")
    page.wait_for_function("/connection .*lost/i.test(document.querySelector("
                           "'[data-testid=status]').textContent)")
    assert re.search(r"trying again", status.inner_text(), re.I), status.inner_text()
    assert audit(page) == [] and overflow(page) == 0
    from cogleague.web.replay_server import bind

    again = serve(bind("127.0.0.1", port))
    with again:
        page.wait_for_function("!/lost/i.test(document.querySelector("
                               "'[data-testid=status]').textContent)", timeout=30_000)
    assert [e for e in p.errors if "ERR_CONNECTION_REFUSED" not in e
            and "WebSocket" not in e] == []


def test_the_theater_says_when_a_live_table_is_out_of_reach(tmp_path: Any,
                                                            open_page: Any) -> None:
    """A spectator of a live table whose server goes away is told so over the stage (not a
    "● live" badge on a frozen picture), and sees "live" again once the server is back."""
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings
    from cogleague.web.replay_server import bind

    db = tmp_path / "server.db"

    def serve(sock: Any = None) -> LiveServer:
        app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
        return LiveServer(app, sock)

    first = serve()
    with first, httpx.Client(base_url=first.url, timeout=30) as http:
        host = account(http, "watch-host")
        tid = http.post("/tables", headers=host, json={
            "game": "dilemma", "seed": 1, "pacing": False,
            "config": {"rounds_total": 2}, "fill_with": "always_cooperate"}).json()["id"]
        p = open_page(360, 780)
        page = p.page
        page.goto(f"{first.url}/theater?table={tid}")
        page.wait_for_selector("body[data-ready=waiting]")
        port = int(first.url.rsplit(":", 1)[1])
    page.wait_for_selector("[data-testid=connection-lost]")
    badges = page.locator("#badges").inner_text()
    assert "not started" not in badges and "live" not in badges, badges
    assert re.search(r"connection lost", badges, re.I), badges
    assert audit(page) == [] and overflow(page) == 0
    with serve(bind("127.0.0.1", port)):
        page.wait_for_selector("[data-testid=waiting]", timeout=30_000)
        assert page.locator("[data-testid=connection-lost]").count() == 0
    assert [e for e in p.errors if "ERR_CONNECTION_REFUSED" not in e
            and "WebSocket" not in e] == []


def test_an_ended_session_is_said_in_words_with_the_way_to_sign_in(server: Any,
                                                                   open_page: Any) -> None:
    """A person whose session ended elsewhere (expired, signed out in another tab) and who then
    clicks "Play now" or creates a table is told to sign in again — not to "send
    Authorization: Bearer <API key>" — and the header no longer names them as signed in."""
    from .test_people import sign_up

    p = open_page(360, 780)
    page = p.page
    sign_up(page, server.url, "ended-session")
    page.context.clear_cookies()
    page.click("[data-testid=play-now-dilemma]")
    problem = page.locator("[data-testid=lobby-problem]")
    problem.wait_for()
    text = problem.inner_text()
    assert "Bearer" not in text and re.search(r"sign in again", text, re.I), text
    assert problem.locator("a[href^='/signin']").count() == 1
    assert page.locator("header [data-testid=me-link]").count() == 0
    assert page.locator("header [data-testid=signin-link]").count() == 1
    page.click("#maker-h")
    page.click("[data-testid=mk-create]")
    status = page.locator("[data-testid=maker] [role=status].error")
    status.wait_for()
    assert "Bearer" not in status.inner_text() and re.search(r"sign in again",
                                                             status.inner_text(), re.I)
    assert audit(page) == [] and overflow(page) == 0


@pytest.mark.parametrize("path", ["/league?id=nope", "/league/agent?id=nope&name=someone"])
def test_an_unknown_season_says_so_without_the_path(server: Any, open_page: Any,
                                                    path: str) -> None:
    p = open_page(360, 780)
    page = p.page
    page.goto(f"{server.url}{path}")
    error = page.locator("main .error")
    error.wait_for()
    text = error.inner_text()
    assert "/leagues/" not in text and text.strip(), text
    # not a dead end: a way on, and the page tells it is done
    assert page.locator("main a[data-testid=way-back]").count() == 1
    assert page.evaluate("document.body.dataset.ready") == "error"
    assert audit(page) == [] and overflow(page) == 0


def test_a_persons_seat_chip_reads_as_two_words(server: Any, open_page: Any) -> None:
    """The Lobby marks a seat a person holds with "person" after its alias; read out (or
    copied) the chip must not run the two together ("Dresherperson")."""
    host = account(server.http, "chip-host")
    tid = server.http.post("/tables", headers=host, json={
        "game": "dilemma", "seed": 1, "pacing": False}).json()["id"]
    person = account(server.http, "chip-person")
    res = server.http.post(f"/tables/{tid}/join", headers=person, json={"kind": "human", "seat": 0})
    assert res.status_code in (200, 201), res.text
    p = open_page(360, 780)
    page = p.page
    page.goto(f"{server.url}/")
    chip = page.locator(f"[data-testid=table-{tid}] [data-testid=seat-0]")
    chip.wait_for()
    assert chip.get_attribute("data-person") == "1"
    text = chip.evaluate("el => el.textContent")
    assert re.fullmatch(r"\S+ person", text.strip()), text


def test_the_lobby_says_the_server_is_out_of_reach_and_comes_back(tmp_path: Any,
                                                                  open_page: Any) -> None:
    """The Lobby left open while its server restarts says it cannot reach it and is trying
    again — not the browser's "Failed to fetch" — and shows the tables again afterwards."""
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings
    from cogleague.web.replay_server import bind

    db = tmp_path / "server.db"

    def serve(sock: Any = None) -> LiveServer:
        app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
        return LiveServer(app, sock)

    first = serve()
    with first, httpx.Client(base_url=first.url, timeout=30) as http:
        host = account(http, "lobby-host")
        tid = http.post("/tables", headers=host, json={
            "game": "dilemma", "seed": 1, "pacing": False}).json()["id"]
        p = open_page(360, 780)
        page = p.page
        page.goto(f"{first.url}/?refresh_ms=300")
        page.wait_for_selector(f"[data-testid=table-{tid}]")
        port = int(first.url.rsplit(":", 1)[1])
    page.wait_for_selector("body[data-ready=error]")
    text = page.locator("main .error:not([data-testid=lobby-problem])").inner_text()
    assert "Failed to fetch" not in text and re.search(r"trying again", text, re.I), text
    assert audit(page) == [] and overflow(page) == 0
    with serve(bind("127.0.0.1", port)):
        page.wait_for_selector(f"[data-testid=table-{tid}]", timeout=30_000)
        assert page.locator("main .error:not([hidden])").count() == 0


def test_a_seat_the_server_refuses_is_told_apart_from_a_lost_server(server: Any,
                                                                    open_page: Any) -> None:
    """A seat this browser kept whose token the server no longer accepts (the table is there,
    the socket is refused) is not "connection lost": the page says the server does not take
    this seat, and offers to forget it and take a seat again."""
    host = account(server.http, "refused-host")
    tid = server.http.post("/tables", headers=host, json={
        "game": "dilemma", "seed": 1, "pacing": False}).json()["id"]
    p = open_page(360, 780)
    page = p.page
    page.goto(f"{server.url}/")
    page.evaluate("""(id) => localStorage.setItem(`cogleague.seat.${id}`,
        JSON.stringify({seat: 0, token: 'not-this-seats-token'}))""", tid)
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("[data-testid=seat-refused]")
    text = page.locator("[data-testid=status]").inner_text()
    assert "lost" not in text and tid in text, text
    assert audit(page) == [] and overflow(page) == 0
    page.click("[data-testid=forget-seat]")
    page.wait_for_selector("body[data-ready=join]")
    assert page.evaluate("(id) => localStorage.getItem(`cogleague.seat.${id}`)", tid) is None
