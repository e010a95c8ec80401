"""The League pages in Chromium: the live board and an agent's page, filled by a real season
on a real server (uvicorn on loopback, SQLite) with a remote agent on `/ws/agent`; axe-core
finds no serious or critical violation at 360 and 1440 px and nothing scrolls sideways."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from cogleague.client.agent import run_agent
from cogleague.games import registry
from cogleague.server.app import create_app
from cogleague.server.settings import Settings
from season.bots import Either
from season.season import account, register, season_file
from web.conftest import OPERATOR_KEY, LiveServer
from web.test_audit import audit, overflow


@pytest.fixture
def site(tmp_path: Path) -> Any:
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'site.db'}", operator_key=OPERATOR_KEY,
                        season=str(season_file(tmp_path, tables=500, final_top=0)),
                        tune_gc=False)
    with LiveServer(create_app(settings)) as server:
        async def play() -> None:
            key = await account(server.url, OPERATOR_KEY, "ann")
            await register(server.url, key, name="bot-a", games=["dilemma", "commons"],
                           cap=2, description="the example bots")
            await run_agent(Either, server.url, key, "bot-a", max_tables=4)
        # Playwright's sync API holds this thread's event loop: the agent runs in its own
        agent = threading.Thread(target=lambda: asyncio.run(play()))
        agent.start()
        agent.join(120)
        yield server


def test_the_board_and_an_agent_page(site: Any, open_page: Any) -> None:
    for width in (360, 1440):
        p = open_page(width, 800)
        p.page.goto(f"{site.url}/league")
        p.page.wait_for_selector("body[data-ready=league]")
        row = p.page.locator("[data-testid=agent-bot-a]")
        assert row.count() == 1 and "ann" in row.inner_text()
        assert audit(p.page) == [] and overflow(p.page) == 0
        p.page.click("[data-testid=agent-bot-a] a")
        p.page.wait_for_selector("body[data-ready=agent]")
        assert p.page.locator("[data-testid=rating-chart]").count() == 1
        assert p.page.locator("[data-testid=recent] a", has_text="replay").count() >= 1
        assert "agent of ann" in p.page.inner_text("#about")
        # a remote agent's profile, measured from its recorded tables
        assert p.page.locator("[data-testid=profile] tbody tr").count() >= 1
        assert audit(p.page) == [] and overflow(p.page) == 0
        # a baseline's page also shows its `cogleague profile` traits
        p.page.goto(f"{site.url}/league/agent?id=ci-season&name=tft")
        p.page.wait_for_selector("body[data-ready=agent]")
        assert "nice" in p.page.inner_text("[data-testid=profile]")
        assert "baseline agent of operator" in p.page.inner_text("#about")
        assert audit(p.page) == [] and overflow(p.page) == 0
        assert p.errors == []


def test_the_board_keeps_the_focus_when_a_rating_arrives(site: Any, open_page: Any) -> None:
    """The board re-renders on every pushed rating: a keyboard user's focus (a game's tab, an
    agent's link) must stay where it was, as the Lobby's does."""
    p = open_page(1440, 800)
    page = p.page
    page.goto(f"{site.url}/league")
    page.wait_for_selector("body[data-ready=league]")
    version = page.evaluate("document.body.dataset.version")
    for _ in range(30):  # Tab to the second game's tab
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.game") == "dilemma":
            break
    else:
        pytest.fail("Tab never reaches the board's dilemma tab")
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=board-dilemma]")
    # which tab is chosen is told to a screen reader too, not by its colour alone
    assert page.get_by_role("button", pressed=True).all_inner_texts() == \
        [registry.get("dilemma").title]

    async def more() -> None:
        key = await account(site.url, OPERATOR_KEY, "bea")
        await register(site.url, key, name="bot-b", games=["dilemma"], cap=1)
        await run_agent(Either, site.url, key, "bot-b", max_tables=1)
    agent = threading.Thread(target=lambda: asyncio.run(more()))
    agent.start()
    page.wait_for_function("(v) => document.body.dataset.version !== v", arg=version,
                           timeout=120_000)
    agent.join(120)
    assert page.evaluate("document.activeElement.dataset.game") == "dilemma"
    page.keyboard.press("Tab")  # on into the board, from where the focus was
    assert page.evaluate("document.activeElement.closest('#tabs, #board') !== null")
    assert p.errors == []


def test_the_observatory_names_each_season_version_by_kind_and_owner(site: Any,
                                                                     open_page: Any) -> None:
    """The season's versions in the Observatory: a remote agent and a baseline, each said in
    words with its owner, never as a "server account"."""
    for width in (360, 1440):
        p = open_page(width, 800)
        p.page.goto(f"{site.url}/observatory")
        p.page.wait_for_selector("body[data-ready=observatory]")
        tag = p.page.locator("[data-testid='row-bot-a@v1'] [data-field=kind]").first
        assert tag.inner_text() == "remote agent" and tag.get_attribute("title") == "by ann"
        baselines = p.page.locator("[data-field=kind]", has_text="baseline")
        assert baselines.count() >= 1  # the season's baselines filled bot-a's tables
        assert {baselines.nth(k).get_attribute("title")
                for k in range(baselines.count())} == {"by operator"}
        assert "server account" not in p.page.inner_text("#standings")
        assert audit(p.page) == [] and overflow(p.page) == 0
        assert p.errors == []


def test_every_page_offers_the_league_while_a_season_runs(site: Any, open_page: Any) -> None:
    """The season's page is one click from every page, not only from the League pages."""
    for width in (360, 1440):
        p = open_page(width, 800)
        for path in ("/", "/theater", "/observatory", "/play", "/rules", "/signin", "/me"):
            p.page.goto(f"{site.url}{path}")
            link = p.page.locator("header nav a[data-nav=league]")
            link.wait_for()
            assert link.count() == 1 and link.get_attribute("href") == "/league", path
            assert audit(p.page) == [] and overflow(p.page) == 0, path
        p.page.locator("header nav a[data-nav=league]").click()
        p.page.wait_for_selector("body[data-ready=league]")
        assert p.errors == []
