"""The end card's title is a second-level heading on every game's Theater page: a screen
reader's outline goes page title → "Final standings" wherever the card sits (Ledger's stage has
no heading of its own, so the card's old h3 followed the h1 directly — axe's heading-order).
Every axe finding counts here, the moderate ones included."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from cogleague.web.replay_server import create_replay_app

from .conftest import LiveServer
from .replays import write_replay
from .test_audit import AXE_JS

pytestmark = pytest.mark.browser


def _findings(page: Any) -> list[str]:
    page.add_script_tag(path=str(AXE_JS))
    found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
        .violations.map((v) => ({id: v.id, impact: v.impact,
                                 nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))""")
    return [json.dumps(v) for v in found]


def _replay(game: str, tmp_path: Path) -> Path:
    """A replay file of `game`; Threshold (a plugin without a viewer: the generic renderer)
    when installed."""
    if game != "threshold":
        return write_replay(game, tmp_path / "r.json")[0]
    pytest.importorskip("cogleague_threshold", reason="pip install -e examples/threshold")
    import cogleague

    return cogleague.play("threshold", seed=7, variant="refund").save(tmp_path / "run") \
        / "replay.json"


@pytest.mark.parametrize("game", ["dilemma", "ledger", "commons", "threshold"])
def test_end_card_heading_keeps_the_outline(tmp_path: Path, open_page: Any, game: str) -> None:
    path = _replay(game, tmp_path)
    with LiveServer(create_replay_app(path)) as server:
        p = open_page(1440, 900)
        p.page.goto(f"{server.url}/theater?file=1")
        p.page.wait_for_selector("body[data-ready=replay]")
        p.page.keyboard.press("End")
        p.page.wait_for_selector("[data-testid=endcard]")
        levels = p.page.locator("h1, h2, h3, h4").evaluate_all(
            "hs => hs.map(h => Number(h.tagName[1]))")
        assert all(b <= a + 1 for a, b in pairwise(levels)), levels
        assert p.page.locator("[data-testid=endcard] h2").count() == 1
        assert _findings(p.page) == []
        assert p.errors == []
