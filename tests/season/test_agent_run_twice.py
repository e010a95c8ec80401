"""Two `cogleague agent run` for one agent (a forgotten one in the background, a restart
with new code): the newer connection plays, and the older one is told so and stops, saying
why, instead of sitting "online" while the server hands its tables to the other (real
server, real sockets)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from cogleague.client.agent import AgentRefused, run_agent
from season.season import account, query, register, season_file
from server.support import OPERATOR_KEY

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

from dilemma_bot import PromiseKeeper  # noqa: E402


def _seats(db: str, name: str) -> int:
    return int(query(db, "SELECT COUNT(*) FROM season_seats ss JOIN agents a ON a.id = "
                         "ss.agent_id WHERE a.name = :n", n=name)[0][0])


async def test_a_second_run_replaces_the_first_which_stops_saying_why(
        make_server: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                    fill_after_s=0.2)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="twin", games=["dilemma"], cap=1)
    first = asyncio.create_task(run_agent(PromiseKeeper, server.url, key, "twin",
                                          reconnect_for_s=30))
    second: asyncio.Task[Any] | None = None
    try:
        for _ in range(600):
            if _seats(db, "twin") >= 1 or first.done():
                break
            await asyncio.sleep(0.1)
        assert _seats(db, "twin") >= 1, "the first run was never matched"
        second = asyncio.create_task(run_agent(PromiseKeeper, server.url, key, "twin",
                                               max_tables=2, reconnect_for_s=30))
        with pytest.raises(AgentRefused) as caught:
            await asyncio.wait_for(first, 60)
        said = str(caught.value)
        assert "agent twin" in said and "another connection" in said, said
        done = await asyncio.wait_for(second, 120)  # the newer one plays on
        assert len(done.finished) + len(done.failures) >= 2
    finally:
        first.cancel()
        if second is not None:
            second.cancel()
