"""The web router over HTTP (no browser): pages, static files, the replay file, the rendered
rules and protocol pages, and the standings read from the league store."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from cogleague.core import jsonio
from cogleague.web import routes
from cogleague.web.replay_server import create_replay_app
from cogleague.web.standings import STORE_URL_STATE


@pytest.fixture
def client() -> TestClient:
    app = FastAPI()
    app.include_router(routes.router)
    return TestClient(app)


@pytest.mark.parametrize("path", ["/", "/lobby", "/theater", "/observatory", "/rules"])
def test_pages_are_html(client: TestClient, path: str) -> None:
    res = client.get(path)
    assert res.status_code == 200
    assert res.headers["content-type"].startswith("text/html")
    assert '<script type="module"' in res.text


def test_every_module_a_page_imports_is_served(client: TestClient) -> None:
    static = Path(routes.STATIC_DIR)
    for js in sorted(static.rglob("*.js")):
        rel = js.relative_to(static).as_posix()
        res = client.get(f"/static/{rel}")
        assert res.status_code == 200, rel
        assert res.headers["content-type"].startswith("text/javascript"), rel
    assert client.get("/static/css/site.css").headers["content-type"].startswith("text/css")


@pytest.mark.parametrize("path", ["/static/../routes.py", "/static/%2e%2e/routes.py",
                                  "/static/nothing.js", "/static/js"])
def test_static_refuses_paths_outside_or_missing(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_replay_file_only_under_replay_open(client: TestClient, tmp_path: Path) -> None:
    assert client.get("/api/replay-file").status_code == 404
    doc = {"format": "dilemma.replay.v1", "events": [], "note": "ünïcode"}
    path = jsonio.write(tmp_path / "r.json", doc)
    res = TestClient(create_replay_app(path)).get("/api/replay-file")
    assert res.status_code == 200
    assert res.json() == doc


def test_docs_render_the_three_rules_pages_and_the_protocol(client: TestClient) -> None:
    listed = client.get("/api/docs").json()["docs"]
    names = [d["name"] for d in listed]
    assert {"ledger", "commons", "dilemma"} <= set(names[:-1]) and names[-1] == "protocol"
    assert names[:-1] == sorted(names[:-1])
    for name in names:
        page = client.get(f"/api/docs/{name}").json()
        assert page["name"] == name
        assert "<h1>" in page["html"] or "<h2>" in page["html"]
    res = client.get("/api/docs/chess")
    assert res.status_code == 404
    assert "protocol" in res.json()["detail"]


def test_markdown_raw_html_is_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cogleague.web import docs

    md = tmp_path / "protocol.md"
    md.write_text("# Title\n\n<script>alert(1)</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    monkeypatch.setattr(docs, "PROTOCOL_SOURCES", (md,))
    html = docs.render("protocol")["html"]
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<table>" in html


def test_standings_from_the_league_store(tmp_path: Path) -> None:
    from cogleague.league.store import record_episode

    url = f"sqlite:///{tmp_path / 'league.db'}"
    for i, scores in enumerate(([10, 4, 7], [6, 8, 7])):
        record_episode(url, game="dilemma", variant=None, seed=i, table_id=f"t{i}",
                       policy_names=["tft", "defector", "pavlov"],
                       results={"scores": scores, "reason": "complete"})
    app = FastAPI()
    app.include_router(routes.router)
    setattr(app.state, STORE_URL_STATE, url)
    client = TestClient(app)
    doc = client.get("/api/standings", params={"game": "dilemma"}).json()
    (game,) = doc["games"]
    assert game["game"] == "dilemma" and game["episodes"] == 2
    (table,) = game["tables"]
    rows = {r["policy"]: r for r in table["rows"]}
    assert rows["tft"]["mean"] == 8.0 and rows["pavlov"]["mean"] == 7.0
    assert rows["defector"]["mean"] == 6.0
    assert rows["pavlov"]["low"] == rows["pavlov"]["high"] == 7.0  # zero-width interval
    # two episodes cannot separate tft from defector: the league marks them level, not ranked
    assert not rows["tft"]["separated"] and rows["tft"]["rank_label"].startswith("level")
    assert {r["policy"] for r in game["overall"]["bradley_terry"]["rows"]} == set(rows)
    everything = client.get("/api/standings").json()["games"]
    by_game = {g["game"]: g for g in everything}
    assert {"ledger", "commons", "dilemma"} <= set(by_game)
    assert by_game["ledger"]["tables"] == [] and by_game["ledger"]["overall"] is None
    bad = client.get("/api/standings", params={"game": "chess"})
    assert bad.status_code == 400 and "ledger" in bad.json()["detail"]


def test_standings_without_a_store(client: TestClient) -> None:
    doc = client.get("/api/standings").json()
    assert doc["source"] is None
    assert all(g["episodes"] == 0 for g in doc["games"])
