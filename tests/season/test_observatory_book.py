"""A running season's agent versions in the Observatory's standings (`GET /api/standings`):
each labelled by its kind and its owner from the league store's policy book, which the
season fills as its tables are recorded without replacing an entry already there; a held-out
agent stays unnamed until the season ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from cogleague.league import store
from season.season import (
    account,
    constant_policy,
    file_b64,
    post,
    query,
    recorded,
    register,
    season_file,
    wait_for,
)
from server.support import OPERATOR_KEY


def _rows(url: str) -> tuple[dict[str, dict[str, Any]], str]:
    got = httpx.get(f"{url}/api/standings", params={"game": "dilemma"}, timeout=30)
    assert got.status_code == 200, got.text
    rows = {r["policy"]: r for table in got.json()["games"][0]["tables"] for r in table["rows"]}
    return rows, got.text


async def test_season_versions_carry_their_kind_and_owner(make_server: Any,
                                                          tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                    fill_after_s=0.0, held_out=("hidden",))),
                         policy_dir=str(tmp_path / "hosted"))
    url = server.url
    key = await account(url, OPERATOR_KEY, "hal")
    for name in ("coop", "hidden"):
        await register(url, key, name=name, kind="policy", games=["dilemma"],
                       policy_file=file_b64(coop))
    sat = ("SELECT t.id FROM tables t JOIN season_seats ss ON ss.table_id = t.id JOIN agents a "
           "ON a.id = ss.agent_id WHERE t.state = 'finished' AND a.name = :n")
    for name in ("coop", "hidden"):
        await wait_for(lambda n=name: query(db, sat, n=n), 60, f"a table of {name}'s")
    for name in ("coop", "hidden"):
        await wait_for(lambda n=name: recorded(db, "SELECT id FROM league_episodes WHERE lineup "
                                              "LIKE :p", p=f"%{n}@v1%"), 60, f"{name} recorded")

    rows, text = _rows(url)
    assert {k: rows["coop@v1"][k] for k in ("kind", "author")} \
        == {"kind": "policy", "author": "hal"}, rows["coop@v1"]
    baselines = [r for name, r in rows.items() if name.split("@v")[0] in ("tft", "defector")]
    assert baselines and all((r["kind"], r["author"]) == ("baseline", "operator")
                             for r in baselines), baselines
    assert "server" not in {r["kind"] for r in rows.values()}, rows
    assert "hidden" not in text, text[:300]  # nor its row, nor its book entry's owner


def test_a_season_adds_to_a_book_and_replaces_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'book.db'}"
    store.save_policies(url, "L", [{"name": "a", "author": "ann", "kind": "league",
                                    "ref": "baseline:x"}])
    store.add_policies(url, "L", [{"name": "a", "author": "bob", "kind": "remote", "ref": "a"},
                                  {"name": "b@v1", "author": "bob", "kind": "model",
                                   "ref": "b@v1", "model": "m"}])
    store.add_policies(url, "L", [{"name": "b@v1", "author": "eve", "kind": "remote",
                                   "ref": "b@v1"}])
    assert store.load_policies(url, "L") == {
        "a": {"name": "a", "author": "ann", "kind": "league", "ref": "baseline:x", "model": None},
        "b@v1": {"name": "b@v1", "author": "bob", "kind": "model", "ref": "b@v1", "model": "m"}}


async def test_versions_recorded_before_the_book_get_their_labels_at_start(
        make_server: Any, tmp_path: Path) -> None:
    """A store whose season tables were recorded without book entries (by a server before it
    kept them): the next start adds them, for versions that will never play again too."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    coop = constant_policy(tmp_path / "coop.npz", "dilemma", 0)
    settings = {"season": str(season_file(tmp_path, tables=100000, final_top=0,
                                          fill_after_s=0.0)),
                "policy_dir": str(tmp_path / "hosted")}
    server = make_server(db, **settings)
    key = await account(server.url, OPERATOR_KEY, "hal")
    await register(server.url, key, name="coop", kind="policy", games=["dilemma"],
                   policy_file=file_b64(coop))
    sat = ("SELECT t.id FROM tables t JOIN season_seats ss ON ss.table_id = t.id JOIN agents a "
           "ON a.id = ss.agent_id WHERE t.state = 'finished' AND a.name = 'coop'")
    await wait_for(lambda: query(db, sat), 60, "a table of coop's")
    await wait_for(lambda: recorded(db, "SELECT id FROM league_episodes WHERE lineup LIKE "
                                     "'%coop@v1%'"), 60, "coop recorded")
    await post(server.url, key, "/agents/coop/retire")
    server.stop()
    engine = create_engine(db)
    with engine.begin() as conn:  # as a server before the book was kept left it
        conn.execute(text("DELETE FROM league_policies"))
    engine.dispose()
    assert not query(db, "SELECT name FROM league_policies")

    server = make_server(db, **settings)
    rows, _ = _rows(server.url)
    assert (rows["coop@v1"]["kind"], rows["coop@v1"]["author"]) == ("policy", "hal"), \
        rows["coop@v1"]
