"""The Theater in a real browser, on real replays of each game: it loads without console
errors, the scrubber reaches the end card, and the numbers shown equal the replay's results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cogleague.web.replay_server import create_replay_app

from .conftest import LiveServer
from .replays import write_replay

pytestmark = pytest.mark.browser


def _load(open_page: Any, server: LiveServer, width: int, height: int = 900) -> Any:
    p = open_page(width, height)
    p.page.goto(f"{server.url}/theater?file=1")
    p.page.wait_for_selector("body[data-ready=replay]")
    return p


def _cells(page: Any, selector: str) -> list[str]:
    return [c.strip() for c in page.locator(selector).all_inner_texts()]


def test_dilemma_replay(tmp_path: Path, open_page: Any, shots: Path) -> None:
    path, doc = write_replay("dilemma", tmp_path / "replay.json")
    with LiveServer(create_replay_app(path)) as server:
        p = _load(open_page, server, 1440)
        page = p.page
        page.keyboard.press("End")
        page.wait_for_selector("[data-testid=endcard]")
        for seat in doc["results"]["seats"]:
            row = page.locator(f"[data-testid=final-{seat['seat']}]")
            assert row.locator("[data-field=points]").inner_text() == str(seat["points"])
            assert row.locator("[data-field=rank]").inner_text() == str(seat["rank"])
            assert row.locator("[data-field=promises]").inner_text() == \
                f"{seat['promises_kept']}/{seat['promises_made']}"
            assert float(row.locator("[data-field=cooperation_rate]").inner_text()) == \
                pytest.approx(seat["cooperation_rate"], abs=1e-4)
        page.screenshot(path=str(shots / "dilemma-1440.png"), full_page=True)
        assert p.errors == []
        small = _load(open_page, server, 360, 780)
        small.page.keyboard.press("End")
        small.page.wait_for_selector("[data-testid=endcard]")
        small.page.screenshot(path=str(shots / "dilemma-360.png"), full_page=True)
        assert small.errors == []


def test_ledger_replay(tmp_path: Path, open_page: Any, shots: Path) -> None:
    path, doc = write_replay("ledger", tmp_path / "replay.json")
    res = doc["results"]
    with LiveServer(create_replay_app(path)) as server:
        p = _load(open_page, server, 1440)
        page = p.page
        assert page.locator("[data-testid^=post-]").count() == 8
        page.keyboard.press("ArrowRight")  # round 1: four meetings on the plaza
        page.wait_for_selector("[data-testid=meeting][data-mark]")
        assert page.locator("[data-testid=meeting]").count() == 4
        page.keyboard.press("End")
        page.wait_for_selector("[data-testid=endcard]")
        for seat in range(8):
            row = page.locator(f"[data-testid=final-{seat}]")
            assert float(row.locator("[data-field=scores]").inner_text()) == res["scores"][seat]
            assert float(row.locator("[data-field=mean]").inner_text()) == res["mean"][seat]
            assert float(row.locator("[data-field=total]").inner_text()) == res["total"][seat]
            assert float(row.locator("[data-field=halo]").inner_text()) == res["halo"][seat]
        page.screenshot(path=str(shots / "ledger-1440.png"), full_page=True)
        assert p.errors == []
        small = _load(open_page, server, 360, 780)
        small.page.keyboard.press("End")
        small.page.wait_for_selector("[data-testid=endcard]")
        small.page.screenshot(path=str(shots / "ledger-360.png"), full_page=True)
        assert small.errors == []


@pytest.mark.parametrize("variant", ["cleanup", "harvest-closed", "allelopathic", "mushrooms"])
def test_commons_replay(variant: str, tmp_path: Path, open_page: Any, shots: Path) -> None:
    path, doc = write_replay("commons", tmp_path / "replay.json", variant=variant)
    res = doc["results"]
    with LiveServer(create_replay_app(path)) as server:
        p = _load(open_page, server, 1440)
        page = p.page
        page.keyboard.press("ArrowRight")
        assert page.locator("[data-testid^=cog-]").count() == 6
        page.keyboard.press("End")
        page.wait_for_selector("[data-testid=endcard]")
        for seat in range(6):
            row = page.locator(f"[data-testid=final-{seat}]")
            assert float(row.locator("[data-field=scores]").inner_text()) == \
                pytest.approx(res["scores"][seat], abs=5e-4)
            assert float(row.locator("[data-field=total_extracted]").inner_text()) == \
                pytest.approx(res["total_extracted"][seat], abs=5e-4)
            assert int(row.locator("[data-field=public_effort]").inner_text()) == \
                res["public_effort"][seat]
            assert row.locator("[data-field=sanctions]").inner_text() == \
                f"{res['sanctions_given'][seat]} / {res['sanctions_received'][seat]}"
        summary = page.locator("[data-testid=end-summary]").inner_text()
        assert f"welfare {round(res['welfare'], 2):g}" in summary
        assert p.errors == []
        if variant == "cleanup":
            page.keyboard.press("Escape")
            page.keyboard.press("ArrowLeft")  # the last round, without the card
            page.screenshot(path=str(shots / "commons-1440.png"), full_page=True)
            small = _load(open_page, server, 360, 780)
            for _ in range(6):
                small.page.keyboard.press("ArrowRight")
            small.page.screenshot(path=str(shots / "commons-360.png"), full_page=True)
            assert small.errors == []
