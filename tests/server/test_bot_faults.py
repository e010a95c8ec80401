"""`cogleague bot run` with a bot that raises: the exception is reported once (message and the
bot's last frames), the seat plays on with the rules' fallback for those turns, and the command
exits 1 with the fault summary. A bot written for another game is refused before it joins."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from cogleague.client import LobbyClient
from server.support import ServerProcess, new_account

COGLEAGUE = [sys.executable, "-c", "from cogleague.cli import main; main()"]
BOTS = '''
from cogleague.client import Bot


class Flaky(Bot):
    game = "dilemma"

    def __init__(self):
        self.turns = 0

    def on_turn(self, turn):
        self.turns += 1
        if self.turns % 2 == 0:
            return {"action": "cooperate"} if helper(turn) else None
        return {"action": "cooperate"}


def helper(turn):
    return 1 / 0


class ForLedger(Bot):
    game = "ledger"

    def on_turn(self, turn):
        return {"move": 0}
'''


async def _table(server: ServerProcess) -> tuple[str, str]:
    _, key = await new_account(server)
    async with LobbyClient(server.url, key) as lobby:
        table = await lobby.create_table("dilemma", config={"rounds_total": 3,
                                                            "turn_deadline_ms": 500},
                                         seed=2, pacing=False, fill_with="tit_for_tat")
    return table["id"], key


def _bot_run(server: ServerProcess, bots: Path, cls: str, table: str, key: str
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COGLEAGUE, "bot", "run", f"{bots}:{cls}", "--server", server.url,
                           "--key", key, "--table", table, "--start"],
                          capture_output=True, text=True, timeout=120)


def test_a_raising_bot_keeps_its_seat_and_exits_1_with_the_summary(
        shared_server: ServerProcess, tmp_path: Path) -> None:
    bots = tmp_path / "bots.py"
    bots.write_text(BOTS)
    table, key = asyncio.run(_table(shared_server))
    done = _bot_run(shared_server, bots, "Flaky", table, key)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "Traceback" not in out
    assert out.count("ZeroDivisionError: division by zero (at bots.py:") == 2, out  # once + sum
    assert "bots.py:19 in helper ← bots.py:14 in on_turn" in out, out
    assert f"table {table} ended (complete)" in done.stdout
    assert "on_turn: ZeroDivisionError" in done.stderr and "× on_turn" in done.stderr
    assert len(out.splitlines()) <= 6, out

    async def results() -> dict[str, object]:
        async with LobbyClient(shared_server.url, key) as lobby:
            return dict(await lobby.results(table))

    got = asyncio.run(results())
    assert got["reason"] == "complete"
    seats = got["seats"]
    assert isinstance(seats, list)
    assert seats[0]["timeouts"] == 4  # the raising turns fell back by the rules at the deadline


def test_a_bot_for_another_game_is_refused_before_it_joins(shared_server: ServerProcess,
                                                            tmp_path: Path) -> None:
    bots = tmp_path / "bots.py"
    bots.write_text(BOTS)
    table, key = asyncio.run(_table(shared_server))
    done = _bot_run(shared_server, bots, "ForLedger", table, key)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip() == ("error: bot: bot ForLedger was written for ledger, this "
                                   "table plays dilemma"), done.stderr

    async def seats() -> list[bool]:
        async with LobbyClient(shared_server.url, key) as lobby:
            return [s["taken"] for s in (await lobby.table(table))["seats"]]

    assert asyncio.run(seats()) == [False] * 4
