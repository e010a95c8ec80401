"""A person who signs up, makes a table in the Lobby and sits at it reads one plain line of who
and where they are: "You are Axelrod at table t_… (Prisoner's Dilemma tables)." — the game's
title is not glued to the word "table" (it read "Prisoner's Dilemma tables table t_…")."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import OPERATOR_KEY, LiveServer
from .test_audit import audit

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("seatline") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live:
        yield live


def test_the_seat_line_names_the_table_then_the_game(site: Any, open_page: Any) -> None:
    p = open_page(360, 800)
    page = p.page
    page.goto(f"{site.url}/signup")
    page.wait_for_selector("body[data-ready=signup]")
    page.fill("[data-testid=name]", "seatline")
    page.fill("[data-testid=password]", "correct horse 1")
    page.click("[data-testid=submit]")
    page.get_by_text("Go and play").wait_for()
    page.goto(f"{site.url}/")
    page.wait_for_selector("body[data-ready=lobby]")
    page.click("#maker-h")
    page.select_option("[data-testid=mk-game]", "dilemma")
    page.click("[data-testid=mk-create]")
    page.wait_for_selector("[data-testid=move-form]")
    line = page.locator("[data-testid=seat-line]").inner_text()
    tid = re.search(r"table=(t_[0-9a-f]+)", page.url)
    assert tid, page.url
    assert "table table" not in line and "tables table" not in line, line
    assert re.fullmatch(rf"You are \S+ at table {tid.group(1)} \(Prisoner's Dilemma tables\)\.",
                        line), line
    assert audit(page) == []
    assert p.errors == []
