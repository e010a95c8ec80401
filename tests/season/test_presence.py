"""A remote agent run by `cogleague agent run` in its own process: killed, it stops being
matched within 10 s; started again, it is matched again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from season.season import account, query, register, season_file, wait_for
from server.support import OPERATOR_KEY

BOT = str(Path(__file__).with_name("bots.py")) + ":Either"


def _run(url: str, key: str, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([str(Path(sys.executable).with_name("cogleague")), "agent", "run", BOT,
                             "--server", url, "--key", key, "--agent", "solo"],
                            stdout=log.open("ab"), stderr=subprocess.STDOUT)


async def test_a_dropped_agent_is_unmatched_and_matched_again_after_it_returns(
        make_server: Any, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, max_running=2,
                                                    fill_after_s=0.2, final_top=0)),
                         ping_interval_s=1.0)
    key = await account(server.url, OPERATOR_KEY, "zoe")
    await register(server.url, key, name="solo", games=["dilemma"], cap=1)

    def seats_after(t: float) -> int:
        return int(query(db, "SELECT COUNT(*) FROM season_seats ss JOIN agents a ON "
                             "a.id = ss.agent_id WHERE a.name = 'solo' AND ss.created_at > :t",
                         t=t)[0][0])

    def online() -> bool:
        return bool(query(db, "SELECT COUNT(*) FROM agent_presence")[0][0])

    proc = _run(server.url, key, tmp_path / "agent.log")
    try:
        await wait_for(lambda: seats_after(0) >= 2, 60, "the agent's first tables")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        killed = time.time()
        await wait_for(lambda: not online(), 60, "the agent to go offline")
        offline_after = time.time() - killed
        time.sleep(2.0)  # a few matchmaker ticks: nothing new for an agent that is away
        assert seats_after(killed + offline_after + 0.5) == 0
        proc = _run(server.url, key, tmp_path / "agent.log")
        back = time.time()
        await wait_for(lambda: seats_after(back) >= 1, 30, "the agent to be matched again")
    finally:
        proc.kill()
        proc.wait(10)
    assert offline_after < 60  # a liveness bound (the time to live is 5 s)
