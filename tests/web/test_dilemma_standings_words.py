"""The Prisoner's Dilemma Theater's live standings name their columns in words a spectator
reads without a legend: the timeouts column is headed "timeouts" (as the end card, the CLI and
the league's columns call it), never the abbreviation "t/o", and each header has an accessible
name a screen reader announces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cogleague.web.replay_server import create_replay_app

from .conftest import LiveServer
from .replays import write_replay

pytestmark = pytest.mark.browser


def test_dilemma_standings_head_timeouts_in_words(tmp_path: Path, open_page: Any) -> None:
    path, _ = write_replay("dilemma", tmp_path / "r.json")
    with LiveServer(create_replay_app(path)) as server:
        p = open_page(1440, 900)
        p.page.goto(f"{server.url}/theater?file=1")
        p.page.wait_for_selector("body[data-ready=replay]")
        p.page.keyboard.press("ArrowRight")
        table = p.page.locator("table.data", has=p.page.locator("[data-testid^=score-]"))
        heads = [t.strip() for t in table.locator("thead th").all_inner_texts()]
        assert "t/o" not in heads, heads
        assert not any("/" in h for h in heads), heads
        assert "timeouts" in heads, heads
        header = table.get_by_role("columnheader", name="timeouts", exact=False)
        assert header.count() == 1
        names = table.locator("thead th").evaluate_all(
            "ths => ths.map(t => (t.getAttribute('aria-label') || t.textContent).trim())")
        assert all(names), names
        assert names[0] == "rank", names  # "#" alone is read as "number sign"
        assert p.errors == []
