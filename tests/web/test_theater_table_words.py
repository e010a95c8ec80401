"""The Theater's tables on a phone: the end card's final standings and the live standings
wrap between words only ("Hamilton" never reads "Hamil/ton", "100%" never "100/%"), for every
game's viewer. Checked on the rendered text, one client rect per word."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cogleague.web.replay_server import create_replay_app

from .conftest import LiveServer
from .layout import split_words
from .replays import write_replay

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("game", ["dilemma", "ledger", "commons"])
@pytest.mark.parametrize("width", [320, 360])
def test_theater_tables_wrap_between_words(tmp_path: Path, open_page: Any, game: str,
                                           width: int) -> None:
    path, _ = write_replay(game, tmp_path / "r.json")
    with LiveServer(create_replay_app(path)) as server:
        p = open_page(width, 800)
        p.page.goto(f"{server.url}/theater?file=1")
        p.page.wait_for_selector("body[data-ready=replay]")
        p.page.keyboard.press("End")
        p.page.wait_for_selector("[data-testid=endcard]")
        assert split_words(p.page, "[data-testid=endcard] table th") == []
        assert split_words(p.page, "[data-testid=endcard] table td") == []
        p.page.keyboard.press("Escape")
        assert split_words(p.page, "main table.data th") == []
        assert split_words(p.page, "main table.data td") == []
        assert p.errors == []


CLIPPED = """() => [...document.querySelectorAll('main .scroll-x')]
    .filter((box) => box.scrollWidth > box.clientWidth + 1)
    .map((box) => box.closest('section, .panel')?.querySelector('h2, h3')?.textContent
                  + ` ${box.scrollWidth} > ${box.clientWidth}`)"""


@pytest.mark.parametrize("game", ["dilemma", "ledger", "commons"])
def test_theater_standings_fit_a_phone(tmp_path: Path, open_page: Any, game: str) -> None:
    """A phone sees every standings column it is shown whole: none is cut off at the panel's
    edge ("timeouts" read "time"); a column that does not fit is left to wider screens."""
    path, _ = write_replay(game, tmp_path / "r.json")
    with LiveServer(create_replay_app(path)) as server:
        p = open_page(360, 800)
        p.page.goto(f"{server.url}/theater?file=1")
        p.page.wait_for_selector("body[data-ready=replay]")
        for _ in range(3):
            p.page.keyboard.press("ArrowRight")
        assert p.page.evaluate(CLIPPED) == []
        assert p.errors == []


ABBREVIATED = re.compile(r"\b\w+\.(?=\s|$)|\b\w/\w\b")
"""A clipped word ("sanc.") or a slashed abbreviation ("t/o") standing for a header."""


@pytest.mark.parametrize("game", ["dilemma", "ledger", "commons"])
def test_theater_headers_are_words(tmp_path: Path, open_page: Any, game: str) -> None:
    """Column headers are whole words a spectator reads without a legend: no "t/o", no
    "sanc.", at any width (the headers a phone shows are the wide screen's too)."""
    path, _ = write_replay(game, tmp_path / "r.json")
    with LiveServer(create_replay_app(path)) as server:
        for width in (360, 1440):
            p = open_page(width, 800)
            p.page.goto(f"{server.url}/theater?file=1")
            p.page.wait_for_selector("body[data-ready=replay]")
            for key in ("ArrowRight", "ArrowRight", "End"):
                p.page.keyboard.press(key)
                heads = [x.strip() for x in p.page.locator("main th").all_inner_texts()]
                bad = [x for x in heads if ABBREVIATED.search(x)]
                assert bad == [], (width, key, heads)
            assert p.errors == []


def test_cleanup_pollution_reads_one_way(tmp_path: Path, open_page: Any) -> None:
    """The Cleanup stage names the river's pollution once per picture, on the rules' own 0..1
    scale: its figure and the river's caption agree ("4%" above "pollution 0.04" did not)."""
    path, _ = write_replay("commons", tmp_path / "r.json", variant="cleanup")
    with LiveServer(create_replay_app(path)) as server:
        p = open_page(1440, 900)
        p.page.goto(f"{server.url}/theater?file=1")
        p.page.wait_for_selector("body[data-ready=replay]")
        for _ in range(3):
            p.page.keyboard.press("ArrowRight")
            figure = p.page.locator("[data-testid=kpi-pollution]").text_content()
            caption = p.page.locator("svg text", has_text="river · pollution").text_content() or ""
            said = re.search(r"pollution (\d+(?:\.\d+)?)", caption)
            assert said, caption
            assert figure == said.group(1), (figure, caption)
        assert p.errors == []
