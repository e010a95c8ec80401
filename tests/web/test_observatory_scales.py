"""The Observatory never averages scores of different scales: a 3-round Prisoner's Dilemma
table and a 20-round one are two tables on the page (and in GET /api/standings), each labelled
by the options that set it apart, and the page says why. Tables that differ only in options
that leave the score's scale alone (a deadline, a stake) still share one table."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from .conftest import OPERATOR_KEY, LiveServer, account
from .test_audit import overflow

pytestmark = pytest.mark.browser

ROUNDS = (3, 20, 3)
DEADLINE_MS = (10_000, 10_000, 20_000)  # the third differs from the first by a deadline only


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    db = tmp_path_factory.mktemp("scales") / "server.db"
    app = create_app(Settings(db_url=f"sqlite:///{db}", operator_key=OPERATOR_KEY))
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as http:
        creator = account(http, "scales")
        ids = []
        for rounds, deadline in zip(ROUNDS, DEADLINE_MS, strict=True):
            tid = http.post("/tables", headers=creator, json={
                "game": "dilemma", "seed": 2, "pacing": False, "fill_with": "tit_for_tat",
                "config": {"rounds_total": rounds, "turn_deadline_ms": deadline}}).json()["id"]
            http.post(f"/tables/{tid}/start", headers=creator).raise_for_status()
            ids.append(tid)
        deadline_at = time.monotonic() + 60
        while sum(http.get(f"/tables/{t}").json()["state"] == "finished" for t in ids) < 3 or \
                http.get("/api/standings?game=dilemma").json()["games"][0]["episodes"] < 3:
            assert time.monotonic() < deadline_at, "the tables did not finish"
            time.sleep(0.2)
        live.scores = {t: http.get(f"/tables/{t}/results").json()["scores"]  # type: ignore
                       for t in ids}
        live.ids = ids  # type: ignore[attr-defined]
        yield live


def test_standings_keep_round_counts_apart(site: Any) -> None:
    doc = httpx.get(f"{site.url}/api/standings?game=dilemma").json()["games"][0]
    tables = doc["tables"]
    assert [t["options"] for t in tables] == [{"rounds_total": 3}, {"rounds_total": 20}], tables
    assert [t["episodes"] for t in tables] == [2, 1]
    for table, rounds in zip(tables, (3, 20), strict=True):
        played = [s for t, r in zip(site.ids, ROUNDS, strict=True) if r == rounds
                  for s in site.scores[t]]
        (row,) = table["rows"]  # every seat is tit_for_tat
        assert row["mean"] == pytest.approx(sum(played) / len(played))
    assert doc["overall"] is not None  # within-episode ratings take every episode


def test_observatory_labels_each_scale_and_says_why(site: Any, open_page: Any) -> None:
    p = open_page(1000, 900)
    p.page.goto(f"{site.url}/observatory?game=dilemma")
    p.page.wait_for_selector("body[data-ready=observatory]")
    heads = p.page.locator("[data-testid=variant]").all_inner_texts()
    assert len(heads) == 2, heads
    assert "rounds total 3" in heads[0] and "2 episodes" in heads[0], heads
    assert "rounds total 20" in heads[1] and "1 episode" in heads[1], heads
    note = p.page.locator("[data-testid=scales]").inner_text()
    assert "never averaged" in note and "rounds total" in note, note
    means = p.page.locator("[data-testid=row-tit_for_tat] [data-field=mean]").all_inner_texts()
    assert len(means) == 2, means
    assert p.errors == []


def test_observatory_passes_every_axe_rule(site: Any, open_page: Any) -> None:
    """Every axe finding counts here, the minor ones included (the interval bars' column had an
    empty header)."""
    from .test_theater_end_headings import _findings

    for width in (360, 1440):
        p = open_page(width, 900)
        p.page.goto(f"{site.url}/observatory?game=dilemma")
        p.page.wait_for_selector("body[data-ready=observatory]")
        assert _findings(p.page) == [], width
        assert overflow(p.page) == 0, width  # the bars' hidden header stays in its scroll box
        assert p.errors == []


def test_offline_leagues_split_by_their_recorded_options(tmp_path: Any) -> None:
    """League episodes carry no options of their own; their league's recorded options
    (`league_options`) give the scale. Two leagues at 3 and 20 rounds: two tables; a league
    whose options were never recorded: a table of its own, said so."""
    from fastapi import FastAPI

    from cogleague.league import store
    from cogleague.web import routes
    from cogleague.web.standings import STORE_URL_STATE

    url = f"sqlite:///{tmp_path / 'league.db'}"
    for league, rounds in (("short", 3), ("long", 20), ("old", None)):
        if rounds is not None:
            store.save_options(url, league, {("dilemma", "standard"):
                                             f'{{"rounds_total":{rounds}}}'})
        for seed in range(2):
            store.record_episode(url, game="dilemma", variant="standard", seed=seed,
                                 league=league, source="league",
                                 policy_names=["tft", "defector", "pavlov"],
                                 results={"scores": [rounds or 1, 2, 3], "reason": "complete"})
    app = FastAPI()
    app.include_router(routes.router)
    setattr(app.state, STORE_URL_STATE, url)
    with LiveServer(app) as server:
        doc = httpx.get(f"{server.url}/api/standings?game=dilemma").json()["games"][0]
    options = [t["options"] for t in doc["tables"]]
    assert {"rounds_total": 3} in options and {"rounds_total": 20} in options, options
    assert {"options": "not recorded"} in options, options
    assert len(options) == 3
    for table in doc["tables"]:
        assert table["episodes"] == 2
        tft = next(r for r in table["rows"] if r["policy"] == "tft")
        assert tft["mean"] == table["options"].get("rounds_total", 1)


def test_observatory_says_who_openskill_cannot_rate(site: Any, open_page: Any) -> None:
    """Every seat at these tables is tit_for_tat: OpenSkill learns nothing from a table with one
    policy, so it rates nobody. The page says who is not rated and why, instead of an empty
    table under the heading."""
    p = open_page(1000, 900)
    p.page.goto(f"{site.url}/observatory?game=dilemma")
    p.page.wait_for_selector("body[data-ready=observatory]")
    note = p.page.locator("[data-testid=not-rated]")
    assert note.count() == 1
    assert "tit_for_tat" in note.inner_text() and "another policy" in note.inner_text()
    for table in p.page.locator("table.data").all():
        assert table.locator("tbody tr").count() > 0  # no table without a row
    assert p.errors == []
