"""The fourth game — an installed plugin with no viewer module of its own — in the Theater,
live and in replay, with no line of the web front changed for it (the seam issue, item 7): the
generic renderer draws it from its descriptor and events."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import cogleague

from .test_theater_live_games import _watch, server  # noqa: F401  (the module's live server)

pytestmark = pytest.mark.browser

if os.environ.get("CI") != "true":  # CI installs it (.ci/run); a missing package fails there
    pytest.importorskip("cogleague_threshold",
                        reason="pip install -e examples/threshold for the fourth game")


def _give_all(legal: dict[str, Any]) -> dict[str, Any]:
    return {key: bounds[1] for key, bounds in legal.items()}


def test_the_fourth_game_live_to_the_end_card(server: Any, open_page: Any) -> None:  # noqa: F811
    assert cogleague.game("threshold").viewer is None  # nothing but the generic renderer
    p, res, _ = _watch(server, server.http, open_page, "threshold", {"rounds": 3}, "fair_share",
                       0, _give_all, variant="silent")
    for seat, score in enumerate(res["scores"]):
        row = p.page.locator(f"[data-testid=final-{seat}]")
        assert float(row.locator("[data-field=score]").inner_text()) == score
    assert p.errors == []


def test_the_fourth_game_in_replay(server: Any, open_page: Any, tmp_path: Path) -> None:  # noqa: F811
    result = cogleague.play("threshold", seed=7, variant="refund")
    saved = result.save(tmp_path / "run")
    p = open_page(1440, 900)
    page = p.page
    page.goto(f"{server.url}/theater")
    page.set_input_files("#file", str(saved / "replay.json"))
    page.wait_for_selector("body[data-ready=replay]")
    page.keyboard.press("End")
    page.wait_for_selector("[data-testid=endcard]")
    for seat, score in enumerate(result.scores):
        row = page.locator(f"[data-testid=final-{seat}]")
        assert float(row.locator("[data-field=score]").inner_text()) == score
    # The final event carries the scores too; it is no round of its own.
    played = result.results["rounds_played"]
    assert page.locator("[data-testid=rounds-played]").inner_text().startswith(
        f"{played} rounds")
    assert p.errors == []
