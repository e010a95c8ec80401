"""The Play page's generic seat view (a game without its own renderer: Threshold) shows a
history as a table; on a phone its headers and cells wrap between words only — "Round" never
reads as "R/o/u/n/d" stacked one letter a line — and a table too wide for the screen scrolls
sideways in its own box instead. Checked on the rendered text: every word of every header and
cell sits on one line box (one client rect per word's Range)."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.games import registry

from .conftest import OPERATOR_KEY, LiveServer
from .layout import split_words
from .test_audit import overflow

pytestmark = pytest.mark.browser

pytest.importorskip("cogleague_threshold",
                    reason="pip install -e examples/threshold for the fourth game")

RENDER = """async ([view, ctx]) => {
    const seat = await import('/static/js/seat.js');
    const box = document.createElement('section');
    box.className = 'panel';
    box.append(seat.seatPanel(null, view, ctx));  // as play.js places it: a panel in <main>
    document.querySelector('main').append(box);
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("words") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live:
        yield live


def _view() -> tuple[list[str], dict[str, Any]]:
    """Seat 0's first view of a Threshold table, with two rounds of history."""
    g = registry.get("threshold").make(None, {}, 8, ["fair_share"] * 4)
    g.start()
    g.open_round()
    view = dict({t.seat: t.view for t in g.step().turns()}[0])
    view["history"] = [{"round": r, "pledges": [5, 0, 0, 0], "contributions": [5, 0, 0, 0],
                        "total": 5, "met": False, "payoffs": [5, 10, 10, 10]} for r in (0, 1)]
    return list(g.aliases), view


@pytest.mark.parametrize("width", [320, 360, 768])
def test_generic_seat_table_wraps_between_words(site: Any, open_page: Any, width: int) -> None:
    aliases, view = _view()
    ctx = {"seat": 0, "alias": aliases[0], "aliases": aliases, "rules": {}, "config": {}}
    p = open_page(width, 800)
    p.page.goto(f"{site.url}/play")
    p.page.wait_for_selector("body[data-ready=play]")
    p.page.evaluate(RENDER, [view, ctx])
    heads = p.page.locator("[data-testid=view] table th").all_inner_texts()
    assert [x.strip() for x in heads][:3] == ["Round", "Pledges", "Contributions"], heads
    assert split_words(p.page, "[data-testid=view] table th") == []
    assert split_words(p.page, "[data-testid=view] table td") == []
    assert overflow(p.page) == 0  # a wide table scrolls in its own box, not the page
    assert p.errors == []
