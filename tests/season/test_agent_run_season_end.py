"""An agent online when its season ends (real server, real sockets): the server tells it
the season's phase (`hello`, then `changed`), and `agent run` says the season has ended and
no table comes any more, instead of sitting "online" without a word."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from cogleague.client.agent import AgentRunner
from season.season import account, register, season_file, standings, wait_for
from server.support import OPERATOR_KEY

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

from dilemma_bot import PromiseKeeper  # noqa: E402


async def test_agent_run_says_when_its_season_has_ended(
        make_server: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=2, final_top=0,
                                                    fill_after_s=0.0)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="late", games=["dilemma"], cap=2)
    caplog.set_level(logging.INFO, logger="cogleague.agent")
    runner = AgentRunner(PromiseKeeper, server.url, key, "late", reconnect_for_s=30)
    task = asyncio.create_task(runner.run())
    try:
        await wait_for(lambda: runner.run_state.hello, 60, "the hello")
        assert runner.run_state.hello["phase"] == "running", runner.run_state.hello
        await wait_for(lambda: standings(server.url)["phase"] == "ended", 120, "the end")
        await wait_for(lambda: runner.run_state.settings.get("phase") == "ended", 30,
                       "the changed frame with the new phase")
        said = [r.getMessage() for r in caplog.records]
        assert any("agent late: the season has ended: no more tables are formed" in m
                   for m in said), said
    finally:
        runner.stop.set()
        await asyncio.wait_for(task, 60)
