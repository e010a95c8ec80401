"""Signing out leaves nothing in the browser that plays for the person: the seats they hold are
kept in this browser (localStorage) so a reload resumes them, and after "Sign out" the next
person at the same browser must not be put into those seats."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import OPERATOR_KEY, LiveServer
from .test_people import sign_up

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("people-out") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live:
        yield live


def test_after_sign_out_the_next_person_does_not_get_the_seat(server: Any,
                                                              open_page: Any) -> None:
    p = open_page()
    page = p.page
    sign_up(page, server.url, "first-person")
    page.click("[data-testid=play-now-dilemma]")
    page.wait_for_selector("[data-testid=move-form]")
    tid = re.search(r"table=(t_[0-9a-f]+)", page.url).group(1)  # type: ignore[union-attr]
    page.goto(f"{server.url}/me")
    page.wait_for_selector("body[data-ready=me]")
    with page.expect_navigation():
        page.click("[data-testid=signout]")
    held = page.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('cogleague.seat.'))")
    assert held == [], "the signed-out person's seat tokens are still in this browser"
    sign_up(page, server.url, "second-person")
    page.goto(f"{server.url}/play?table={tid}")
    page.wait_for_selector("body[data-ready]")
    assert page.locator("[data-testid=move-form]").count() == 0
    assert page.evaluate("document.body.dataset.ready") == "error"  # the table is running
