"""The season pages (the League board, an agent's page) in words, on a real season on a real
server on loopback (Chromium): the variant a table played even where the season's table named
none (the game's default, GET /api/games `default_variant`, as the Observatory, Lobby and
Theater do), a cell without a value said in words, never "–", games by their titles and an
agent's traits by the standings columns' labels and formats."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from cogleague.client.agent import run_agent
from cogleague.games import registry
from cogleague.server.app import create_app
from cogleague.server.settings import Settings
from season.bots import Either
from season.season import account, register, season_file

from .conftest import OPERATOR_KEY, LiveServer

pytestmark = pytest.mark.browser

DEFAULT = registry.get("dilemma").default_variant
assert DEFAULT


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("season-variant")
    settings = Settings(db_url=f"sqlite:///{folder / 'site.db'}", operator_key=OPERATOR_KEY,
                        season=str(season_file(folder, tables=500, final_top=0)),
                        tune_gc=False)
    with LiveServer(create_app(settings)) as server:
        async def play() -> None:
            key = await account(server.url, OPERATOR_KEY, "vic")
            await register(server.url, key, name="bot-v", games=["dilemma"], cap=2)
            await run_agent(Either, server.url, key, "bot-v", max_tables=3)
        agent = threading.Thread(target=lambda: asyncio.run(play()))
        agent.start()
        agent.join(120)
        yield server


def test_the_board_names_the_default_variant_of_the_refit(site: Any, open_page: Any) -> None:
    p = open_page(1440, 900)
    p.page.goto(f"{site.url}/league")
    p.page.wait_for_selector("body[data-ready=league]")
    p.page.click("#tabs [data-game=dilemma]")
    rows = p.page.locator("[data-testid=refit-dilemma] tbody tr")
    rows.first.wait_for()
    variants = {rows.nth(k).locator("td").nth(2).inner_text() for k in range(rows.count())}
    assert variants == {DEFAULT}, variants
    assert p.errors == []


def test_an_agents_traits_name_the_default_variant(site: Any, open_page: Any) -> None:
    p = open_page(1440, 900)
    p.page.goto(f"{site.url}/league/agent?id=ci-season&name=bot-v")
    p.page.wait_for_selector("body[data-ready=agent]")
    rows = p.page.locator("[data-testid=traits] tbody tr")
    rows.first.wait_for()
    variants = {rows.nth(k).locator("td").nth(1).inner_text() for k in range(rows.count())}
    assert variants == {DEFAULT}, variants
    assert p.errors == []


REFIT = """async ([variant, game]) => {
    const m = await import('/static/js/league.js');
    const row = {policy: 'p@v1', variant, mean: 1, low: 0, high: 2, games: 3, rank_label: '1'};
    const table = m.refitTable({game: 'g', refit: {rows: [row]}}, {g: game});
    return table.querySelector('tbody td:nth-child(3)').textContent;
}"""
TRAITS = """async ([variant, game]) => {
    const m = await import('/static/js/league_agent.js');
    const doc = {traits: {g: [{variant, extras: {rate: 0.5}}]}};
    return m.traits(doc, {g: game}).querySelector('tbody td:nth-child(2)').textContent;
}"""
GAMES = [  # a stored row that names no variant (a board frozen before the server named it)
    (None, {"variants": ["standard", "quick"], "default_variant": "standard"}, "standard"),
    ("quick", {"variants": ["standard", "quick"], "default_variant": "standard"}, "quick"),
    (None, {"variants": [], "default_variant": None}, "standard"),  # a game without variants
    (None, {"variants": ["a", "b"], "default_variant": None}, "variant not recorded"),
    (None, None, "variant not recorded"),  # a game this server does not have
]


@pytest.mark.parametrize(("variant", "game", "want"), GAMES)
def test_a_refit_row_without_a_variant_is_named_in_words(
        site: Any, open_page: Any, variant: str | None, game: dict[str, Any] | None,
        want: str) -> None:
    p = open_page(800, 600)
    p.page.goto(f"{site.url}/league")
    p.page.wait_for_selector("body[data-ready=league]")
    assert p.page.evaluate(REFIT, [variant, game]) == want
    p.page.goto(f"{site.url}/league/agent?id=ci-season&name=tft")
    p.page.wait_for_selector("body[data-ready=agent]")
    assert p.page.evaluate(TRAITS, [variant, game]) == want


@pytest.mark.parametrize("path", ["/league", "/league/agent?id=ci-season&name=bot-v",
                                  "/league/agent?id=ci-season&name=tft"])
def test_the_season_pages_say_in_words_what_has_no_value(site: Any, open_page: Any,
                                                          path: str) -> None:
    """No fallback yet, no description, a table still playing: words, never a bare "–"."""
    p = open_page(1440, 900)
    p.page.goto(f"{site.url}{path}")
    p.page.wait_for_selector("body[data-ready=league], body[data-ready=agent]")
    cells = [c.strip() for c in p.page.locator("main td").all_inner_texts()]
    assert cells and "–" not in cells, cells
    assert p.errors == []


def test_the_season_pages_name_games_and_traits_in_words(site: Any, open_page: Any) -> None:
    """The board's tabs and heading said "dilemma", an agent's traits "cooperation_rate 0.667":
    the game's title and the standings column's label and format, as the Observatory shows."""
    dilemma = registry.get("dilemma")
    column = next(c for c in dilemma.standings_columns if c.key == "cooperation_rate")
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{site.url}/league")
    page.wait_for_selector("body[data-ready=league]")
    assert dilemma.title in page.locator("#tabs").all_inner_texts()[0]
    page.click("#tabs [data-game=dilemma]")
    assert page.locator("#board h2").text_content() == dilemma.title
    page.goto(f"{site.url}/league/agent?id=ci-season&name=bot-v")
    page.wait_for_selector("[data-testid=traits] tbody tr")
    rows = [[c.strip() for c in r.split("\t")]
            for r in page.locator("[data-testid=traits] tbody tr").all_inner_texts()]
    assert all(r[0] == dilemma.title for r in rows), rows
    rate = next(r for r in rows if r[2] == column.label)
    assert rate[3].endswith("%"), rate
    assert not any("_" in r[2] for r in rows), rows
    assert p.errors == []


def test_an_agents_replay_link_opens_the_theater(site: Any, open_page: Any) -> None:
    """"replay" in an agent's recent tables opened the table's replay document as raw JSON:
    it opens the replay in the Theater, as the Lobby's "Watch the replay" does."""
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{site.url}/league/agent?id=ci-season&name=bot-v")
    page.wait_for_selector("body[data-ready=agent]")
    link = page.locator("[data-testid=recent] tbody tr a", has_text="replay").first
    link.click()
    page.wait_for_selector("body[data-ready=replay]")
    assert page.url.startswith(f"{site.url}/theater?"), page.url
    assert p.errors == []
