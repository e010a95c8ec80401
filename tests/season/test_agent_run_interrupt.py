"""Ctrl-C or SIGTERM on `cogleague agent run` (real server, the real CLI in a subprocess): it goes
offline saying so — the tables it played and failed, and the ones it left mid-play, whose
seats the server times out — instead of exiting without a word."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from season.season import account, query, register, season_file
from server.support import OPERATOR_KEY

ROOT = Path(__file__).resolve().parents[2]
CLI = str(Path(sys.executable).with_name("cogleague"))


def _finished(db: str, name: str) -> int:
    return int(query(db, "SELECT COUNT(*) FROM season_seats ss JOIN agents a ON a.id = "
                         "ss.agent_id JOIN tables t ON t.id = ss.table_id WHERE a.name = :n "
                         "AND t.state = 'finished'", n=name)[0][0])


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
async def test_a_stop_says_what_the_agent_played(make_server: Any, tmp_path: Path,
                                                 stop: signal.Signals) -> None:
    """Ctrl-C, or SIGTERM (a service manager's stop, `kill`): the same goodbye."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                    fill_after_s=0.2)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="quit", games=["dilemma"], cap=1)
    proc = subprocess.Popen(
        [CLI, "agent", "run", f"{ROOT}/examples/dilemma_bot.py:PromiseKeeper",
         "--server", server.url, "--key", key, "--agent", "quit"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for _ in range(1200):
            if _finished(db, "quit") >= 1 or proc.poll() is not None:
                break
            await asyncio.sleep(0.1)
        assert _finished(db, "quit") >= 1, "the agent never finished a table"
        proc.send_signal(stop)
        out, _ = await asyncio.to_thread(proc.communicate, timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    said = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}[stop]
    assert f"agent quit: offline ({said}): " in out and " table(s) played, " in out, out
