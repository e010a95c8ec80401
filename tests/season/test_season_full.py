"""The full season of the league's promise: 300 tables over the three games on a real server
(SQLite), and the same season on two processes sharing a throwaway PostgreSQL with one of them
SIGKILLed mid-season. Four remote bots run as `cogleague agent run` subprocesses, two model
agents call the local provider test server, three policy files and nine baselines fill the
rest (`full.py`). Every table is finished and rated once, nothing is lost or counted twice,
no account meets itself, every agent plays within 15 % of its fair share of tables (the mean
of the agents entered in the same games with the same cap), identical agents come out level,
and the board's order of the scripted policies agrees with the offline league's on the same
league file with the season's entrants added (the field the policies met live)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from season.full import (
    GAMES,
    IDENTICAL,
    REMOTE,
    counts,
    logs,
    run_full_season,
    same_population,
)

pytestmark = pytest.mark.slow
TABLES = 300


def _separated_the_other_way(season: dict[str, dict[str, float]],
                             offline: dict[str, dict[str, float]]) -> list[tuple[str, str]]:
    """Pairs of policies each board ranks apart, in opposite orders (intervals disjoint)."""
    both = sorted(set(season) & set(offline))
    return [(a, b) for a in both for b in both
            if season[a]["low"] > season[b]["high"] and offline[b]["low"] > offline[a]["high"]]


def _offline_standings(config: Path, store: str, game: str) -> dict[str, dict[str, float]]:
    """`cogleague league run` and `league standings` of the season's own league file: its
    scripted policies (the [[policies]] baselines) among themselves, offline."""
    runner = CliRunner()
    done = runner.invoke(app, ["league", "standings", str(config), "--store", store,
                               "--game", game, "--json"])
    assert done.exit_code == 0, done.output
    doc = json.loads(done.output)
    return {r["policy"]: r for t in doc["tables"] for r in t["rows"]}


def _check_logged(db: str, board: dict[str, Any], tables: int, folder: Path) -> None:
    """`_check`, its failure told with the processes' logs."""
    try:
        _check(counts(db), board, tables)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nlogs: {logs(folder)}") from None


def _check(found: dict[str, Any], board: dict[str, Any], tables: int) -> None:
    assert board["frozen"] and board["phase"] == "ended" and board["tables_made"] == tables
    assert found["outcomes"] == {"rated": found["tables"]}, found["outcomes"]
    assert found["tables"] == tables + board["final_made"]
    assert set(found["per_game"]) == set(GAMES), found["per_game"]
    for key in ("not_finished", "not_rated_once", "rating_games_off", "self_meetings"):
        assert found[key] == 0, (key, found)
    assert found["episodes_recorded"] == found["tables"]
    # every agent within 15 % of its fair share: the mean of the agents entered in the same
    # games with the same cap (the baselines only fill)
    assert len(found["alike_share"]) == 4, found["alike_tables"]
    assert all(share <= 0.15 for share in found["alike_share"].values()), json.dumps(
        [found["alike_share"], found["alike_tables"], found["per_game_tables"]])
    assert set(found["per_game_tables"]["ledger"]) >= set(REMOTE) | {"p-ledger", "p-ledger-2"}
    # identical agents come out level within their intervals, game by game
    rows = {(g["game"], r["agent"]): r for g in board["games"] for r in g["rows"]}
    for a, b in IDENTICAL:
        for game in GAMES:
            if (game, a) in rows:
                x, y = rows[(game, a)], rows[(game, b)]
                assert x["low"] <= y["high"] and y["low"] <= x["high"], (game, x, y)


async def test_a_full_season_on_sqlite(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'season.db'}"
    season = await run_full_season(tmp_path, db, tables=TABLES)
    _check_logged(db, season.board, TABLES, tmp_path)

    # the board's scripted policies in the offline league's order, within intervals: the
    # offline league of the same file, its scripted policies meeting the field they met live
    offline_store = f"sqlite:///{tmp_path / 'offline.db'}"
    offline_file = same_population(season, tmp_path)
    done = await asyncio.to_thread(  # its bot seats run an event loop of their own
        CliRunner().invoke, app, ["league", "run", str(offline_file), "--store", offline_store,
                                  "--workers", "1"])
    assert done.exit_code == 0, done.output
    compared = 0
    for g in season.board["games"]:
        offline = {name: r for name, r in _offline_standings(
            offline_file, offline_store, g["game"]).items() if r["kind"] == "baseline"}
        live = {name: r for r in g["refit"]["rows"]
                if (name := r["policy"].split("@")[0]) in offline}
        compared += len(live)
        assert not _separated_the_other_way(live, offline), (g["game"], live, offline)
    assert compared >= 9  # tft, defector, steward, free-rider and Ledger's five


@pytest.mark.postgres
async def test_a_full_season_survives_a_sigkill_on_postgres(pg_cluster: Any,
                                                            tmp_path: Path) -> None:
    db = pg_cluster.new_database()
    season = await run_full_season(tmp_path, db, tables=TABLES, processes=2,
                                   kill_after=TABLES // 3)
    assert season.killed_after is not None and season.killed_after < TABLES
    _check_logged(db, season.board, TABLES, tmp_path)
