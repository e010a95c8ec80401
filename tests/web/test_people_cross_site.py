"""Another site's page, in a real browser, cannot use a person's session nor plant its own:
the session cookie is SameSite=Strict and every changing cookie request needs the CSRF header,
and a sign-in posted from elsewhere (no Content-Type, or a form) leaves no session behind.
Two origins: the server at 127.0.0.1, the hostile page at localhost (another site)."""

from __future__ import annotations

import sqlite3
from typing import Any

import httpx
import pytest

from cogleague.server.people import COOKIE

from .conftest import OPERATOR_KEY, LiveServer

pytestmark = pytest.mark.browser
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("cross-site") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live:
        live.db = db  # type: ignore[attr-defined]
        yield live


def _hostile(page: Any, server: Any, script: str) -> None:
    """Run `script` in a page of another site (localhost, served by the test itself)."""
    other = server.url.replace("127.0.0.1", "localhost") + "/hostile"
    page.route(other, lambda r: r.fulfill(status=200, content_type="text/html",
                                          body="<!doctype html><title>elsewhere</title>"))
    page.goto(other)
    page.evaluate(script, server.url)
    page.wait_for_timeout(300)


def test_another_site_cannot_act_with_the_persons_session(server: Any, open_page: Any) -> None:
    page = open_page().page
    page.goto(f"{server.url}/signup")
    page.wait_for_selector("body[data-ready=signup]")
    page.fill("[data-testid=name]", "victim")
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=submit]")
    page.wait_for_selector("[data-testid=api-key]")
    _hostile(page, server, """async (url) => {
        const body = JSON.stringify({game: "dilemma"});
        for (const init of [{}, {headers: {"Content-Type": "text/plain"}}])
            await fetch(url + "/tables", {method: "POST", mode: "no-cors", credentials: "include",
                                          body, ...init}).catch(() => null);
        await fetch(url + "/session", {method: "DELETE", mode: "no-cors",
                                       credentials: "include"}).catch(() => null);
    }""")
    assert httpx.get(f"{server.url}/tables").json()["tables"] == []
    page.goto(f"{server.url}/me")
    page.wait_for_selector("body[data-ready=me]")
    assert page.locator("[data-testid=signout]").is_visible()  # still signed in


def test_another_site_cannot_sign_the_browser_in(server: Any, open_page: Any) -> None:
    assert httpx.post(f"{server.url}/people", json={"name": "planted", "password": PASSWORD}
                      ).status_code == 201
    page = open_page().page
    _hostile(page, server, """async (url) => {
        const body = new Blob([JSON.stringify({name: "planted", password: "PASSWORD"})]);
        await fetch(url + "/session", {method: "POST", mode: "no-cors", credentials: "include",
                                       body}).catch(() => null);
    }""".replace("PASSWORD", PASSWORD))
    with sqlite3.connect(server.db) as db:  # the post reached the server and signed in…
        assert db.execute("SELECT count(*) FROM web_sessions JOIN accounts ON accounts.id = "
                          "account_id WHERE name = 'planted'").fetchone()[0] == 1
    assert [c for c in page.context.cookies() if c["name"] == COOKIE] == []  # …not kept
    page.goto(f"{server.url}/me")
    page.wait_for_selector("body[data-ready=me]")
    assert page.locator("[data-testid=signout]").count() == 0
