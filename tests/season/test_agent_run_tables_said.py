"""`agent run` says each table as it ends (real server, real sockets): the table, the game
and seat, how it ended and where its results are — a run without `--max-tables` otherwise
shows "online" and then nothing while it is matched and rated."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from cogleague.client.agent import run_agent
from season.season import account, register, season_file
from server.support import OPERATOR_KEY

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

from dilemma_bot import PromiseKeeper  # noqa: E402


async def test_each_finished_table_is_said_with_its_results_url(
        make_server: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                    fill_after_s=0.2)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="one", games=["dilemma"], cap=1)
    caplog.set_level(logging.INFO, logger="cogleague.agent")
    done = await run_agent(PromiseKeeper, server.url, key, "one", max_tables=1,
                           reconnect_for_s=30)
    table = done.assigned[0]
    said = [r.getMessage() for r in caplog.records]
    line = next((m for m in said if f"table {table}" in m), None)
    assert line is not None, said
    assert line.startswith(f"agent one: table {table} (dilemma, seat ") and " ended (" in line \
        and f"{server.url}/tables/{table}/results" in line, line
