"""The sign-in and sign-up pages' ``?next=`` stays on this site: after signing in (or following
"Go and play" after signing up) the browser lands on a page of this server, whatever the link
that brought the person there said — a phishing link cannot use the sign-in page to send a
freshly signed-in person to another host (browsers read ``/\\host`` and ``/<tab>/host`` as
``//host``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer

pytestmark = pytest.mark.browser

PASSWORD = "a long enough password"
ELSEWHERE = ["/\\elsewhere.invalid/x", "/\t/elsewhere.invalid/x", "//elsewhere.invalid/x",
             "https://elsewhere.invalid/x", "/\\/elsewhere.invalid", "\\\\elsewhere.invalid"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("people-next") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live:
        yield live


def _watch(page: Any, server: Any) -> list[str]:
    """Requests to any other host are answered here (and recorded), never sent."""
    home = urlsplit(server.url).netloc
    away: list[str] = []

    def route(r: Any) -> None:
        if urlsplit(r.request.url).netloc == home:
            r.continue_()
        else:
            away.append(r.request.url)
            r.fulfill(status=200, content_type="text/html", body="<title>elsewhere</title>")

    page.context.route("**/*", route)
    return away


@pytest.mark.parametrize("target", ELSEWHERE)
def test_sign_in_never_sends_the_person_to_another_host(server: Any, open_page: Any,
                                                       target: str) -> None:
    name = f"nx{ELSEWHERE.index(target)}"
    assert httpx.post(f"{server.url}/people", json={"name": name, "password": PASSWORD}
                      ).status_code == 201
    page = open_page().page
    away = _watch(page, server)
    page.goto(f"{server.url}/signin?next={quote(target, safe='')}")
    page.wait_for_selector("body[data-ready=signin]")
    page.fill("[data-testid=name]", name)
    page.fill("[data-testid=password]", PASSWORD)
    with page.expect_navigation():
        page.click("[data-testid=submit]")
    page.wait_for_load_state()
    assert away == [] and page.url.startswith(server.url), (target, page.url, away)


@pytest.mark.parametrize("target", ELSEWHERE[:2])
def test_sign_up_continues_on_this_site(server: Any, open_page: Any, target: str) -> None:
    page = open_page().page
    away = _watch(page, server)
    page.goto(f"{server.url}/signup?next={quote(target, safe='')}")
    page.wait_for_selector("body[data-ready=signup]")
    page.fill("[data-testid=name]", f"su{ELSEWHERE.index(target)}")
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=submit]")
    with page.expect_navigation():
        page.click("[data-testid=continue]")
    page.wait_for_load_state()
    assert away == [] and page.url.startswith(server.url), (target, page.url, away)


def test_a_next_on_this_site_is_followed(server: Any, open_page: Any) -> None:
    assert httpx.post(f"{server.url}/people", json={"name": "nx-home", "password": PASSWORD}
                      ).status_code == 201
    page = open_page().page
    page.goto(f"{server.url}/signin?next={quote('/me?x=1#k', safe='')}")
    page.wait_for_selector("body[data-ready=signin]")
    page.fill("[data-testid=name]", "nx-home")
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=submit]")
    page.wait_for_selector("body[data-ready=me]")
    assert page.url == f"{server.url}/me?x=1#k"
