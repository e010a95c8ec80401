"""On a server that hosts no season, no page's navigation offers the League page; the "Create
a table" form and the Play page's join form say what the server refused without the request
path first, as the sign-in page does (Chromium, real server on loopback)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account
from .test_audit import audit, overflow
from .test_people import sign_up

pytestmark = pytest.mark.browser

PAGES = ("/", "/theater", "/observatory", "/play", "/rules", "/signin", "/signup")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("nav") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        live.http = http  # type: ignore[attr-defined]
        yield live


def test_no_season_no_league_link(server: Any, open_page: Any) -> None:
    p = open_page(1440, 900)
    for path in PAGES:
        p.page.goto(f"{server.url}{path}")
        p.page.wait_for_load_state("networkidle")  # `GET /leagues` answered
        assert p.page.locator("header nav a").count() >= 5, path
        assert p.page.locator("header nav [data-nav=league]").count() == 0, path


def test_the_maker_says_what_was_refused_without_the_path(server: Any, open_page: Any) -> None:
    p = open_page(1440, 900)
    page = p.page
    sign_up(page, server.url, "refused-maker")
    page.context.clear_cookies()  # the session ends elsewhere: the server refuses the table
    page.click("#maker-h")
    page.select_option("[data-testid=mk-game]", "dilemma")
    page.click("[data-testid=mk-create]")
    status = page.locator("[data-testid=maker] [role=status].error")
    status.wait_for()
    text = status.inner_text()
    assert text and not text.startswith("/"), text
    assert audit(page) == [] and overflow(page) == 0


def test_the_join_form_says_what_was_refused_without_the_path(server: Any,
                                                              open_page: Any) -> None:
    res = server.http.post("/tables", headers=account(server.http, "join-host"),
                           json={"game": "dilemma", "seed": 1, "pacing": False})
    assert res.status_code == 201, res.text
    tid = res.json()["id"]
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready=join]")
    page.fill("[data-testid=key]", "clk_not-a-key")
    page.click("[data-testid=take-seat]")
    status = page.locator("[role=status].error")
    status.wait_for()
    text = status.inner_text()
    assert text and not re.match(r"\s*/", text), text
    assert audit(page) == [] and overflow(page) == 0


def test_the_lobby_and_account_page_say_what_was_refused_without_the_path(
        server: Any, open_page: Any) -> None:
    p = open_page(1440, 900)
    page = p.page
    sign_up(page, server.url, "refused-seat")
    page.click("#maker-h")
    page.select_option("[data-testid=mk-game]", "dilemma")
    page.select_option("[data-testid=mk-fill]", "")  # wait for people
    page.uncheck("[data-testid=mk-sit]")
    page.click("[data-testid=mk-create]")
    status = page.locator("[data-testid=maker] [role=status]")
    page.wait_for_function("/is open/.test(document.querySelector("
                           "'[data-testid=maker] [role=status]').textContent)")
    tid = re.search(r"t_[0-9a-f]+", status.inner_text()).group(0)  # type: ignore[union-attr]
    page.context.clear_cookies()  # the session ends elsewhere: the server refuses the seat
    page.locator(f"[data-testid=table-{tid}] [data-testid=take-seat]").click()
    problem = page.locator("[data-testid=lobby-problem]")
    problem.wait_for()
    assert problem.inner_text() and not problem.inner_text().startswith("/"), \
        problem.inner_text()
    sign_up(page, server.url, "refused-key")
    page.goto(f"{server.url}/me")
    page.wait_for_selector("body[data-ready=me]")
    page.context.clear_cookies()
    page.click("[data-testid=new-key]")
    page.click("[data-testid=confirm-new-key]")
    page.wait_for_function("!document.querySelector('[data-testid=confirm-new-key]')")
    text = page.inner_text("[data-testid=key-out]")
    assert not text.startswith("/"), text
    assert audit(page) == [] and overflow(page) == 0
