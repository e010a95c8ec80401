"""`cogleague agent run` against what the server says of the agent (real server, real
sockets): a bot written for one game (`Bot.game`) run as an agent of other games is refused
before it is matched, instead of raising in every turn of tables it cannot play while each
turn waits out its deadline; a paused agent says so instead of sitting online unmatched."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cogleague.client import LobbyClient
from cogleague.client.agent import AgentRefused, AgentRunner, run_agent
from season.season import account, post, query, register, season_file
from server.support import OPERATOR_KEY

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))

from dilemma_bot import PromiseKeeper  # noqa: E402

CLI = str(Path(sys.executable).with_name("cogleague"))


def _seats(db: str, name: str) -> int:
    return int(query(db, "SELECT COUNT(*) FROM season_seats ss JOIN agents a ON a.id = "
                         "ss.agent_id WHERE a.name = :n", n=name)[0][0])


async def test_a_one_game_bot_is_refused_for_an_agent_of_more_games(make_server: Any,
                                                                    tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                    fill_after_s=0.2)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="two", games=["dilemma", "commons"])
    done = await asyncio.to_thread(
        subprocess.run, [CLI, "agent", "run", f"{ROOT}/examples/dilemma_bot.py:PromiseKeeper",
                         "--server", server.url, "--key", key, "--agent", "two"],
        capture_output=True, text=True, timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert "agent two plays dilemma, commons; bot PromiseKeeper was written for dilemma" \
        in said and "cogleague agent set two --games dilemma" in said, said
    assert _seats(db, "two") == 0


async def test_a_game_added_while_running_stops_the_agent_after_its_tables(
        make_server: Any, tmp_path: Path) -> None:
    """The games changed while the agent runs: the first table of a game the bot was not
    written for is not played; the runner goes offline and stops, saying why."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                    fill_after_s=0.2)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="one", games=["dilemma"], cap=1)
    runner = asyncio.create_task(run_agent(PromiseKeeper, server.url, key, "one",
                                           reconnect_for_s=30))
    try:
        for _ in range(600):
            if _seats(db, "one") >= 1 or runner.done():
                break
            await asyncio.sleep(0.1)
        assert _seats(db, "one") >= 1, "the agent was never matched"
        async with LobbyClient(server.url, key) as lobby:
            await lobby.request("PATCH", "/agents/one", {"games": ["commons"]})
        with pytest.raises(AgentRefused) as caught:
            await asyncio.wait_for(runner, 120)
    finally:
        runner.cancel()
    assert "agent one plays commons; bot PromiseKeeper was written for dilemma" \
        in str(caught.value), caught.value


async def test_a_paused_agent_says_it_is_not_matched(make_server: Any, tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="nap", games=["dilemma"])
    await post(server.url, key, "/agents/nap/pause")
    stop = asyncio.Event()
    caplog.set_level(logging.INFO, logger="cogleague.agent")
    runner = asyncio.create_task(run_agent(PromiseKeeper, server.url, key, "nap", stop=stop))
    try:
        for _ in range(600):
            if runner.done() or any("paused" in r.getMessage() for r in caplog.records):
                break
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await asyncio.wait_for(runner, 30)
    said = [r.getMessage() for r in caplog.records if "paused" in r.getMessage()]
    assert said and "agent nap is paused (paused by its owner): it is not matched until " \
        "resumed (cogleague agent resume nap)" in said[0], said


async def test_a_game_added_while_connected_stops_the_agent_before_it_is_matched(
        make_server: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The server tells a connected agent its new games (`changed`): a bot written for one
    game goes offline at once, saying which game, before any table of it is formed (the
    agent is paused here, so it is never matched whatever the timing). A new cap is taken
    as the agent's (`AgentRun.settings`)."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0,
                                                    fill_after_s=0.2)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="one", games=["dilemma"], cap=1)
    await post(server.url, key, "/agents/one/pause")
    caplog.set_level(logging.INFO, logger="cogleague.agent")
    runner = AgentRunner(PromiseKeeper, server.url, key, "one", reconnect_for_s=30)
    task = asyncio.create_task(runner.run())
    try:
        for _ in range(600):
            if task.done() or any("is paused" in r.getMessage() for r in caplog.records):
                break
            await asyncio.sleep(0.05)
        assert runner.run_state.settings.get("cap") == 1, runner.run_state
        async with LobbyClient(server.url, key) as lobby:
            await lobby.request("PATCH", "/agents/one", {"cap": 4})
        for _ in range(600):
            if task.done() or runner.run_state.settings.get("cap") == 4:
                break
            await asyncio.sleep(0.05)
        assert runner.run_state.settings["cap"] == 4, runner.run_state
        assert not task.done()
        async with LobbyClient(server.url, key) as lobby:
            await lobby.request("PATCH", "/agents/one", {"games": ["dilemma", "commons"]})
        with pytest.raises(AgentRefused) as caught:
            await asyncio.wait_for(task, 60)
    finally:
        task.cancel()
    assert "agent one plays dilemma, commons; bot PromiseKeeper was written for dilemma" \
        in str(caught.value), caught.value
    assert _seats(db, "one") == 0
    assert runner.run_state.assigned == []


async def test_a_refused_bot_is_said_once_with_what_was_played(make_server: Any,
                                                               tmp_path: Path) -> None:
    """`agent run` of a one-game bot for an agent of another game: the reason once (the SDK
    logs it as it goes offline; the CLI does not print it again), then what it played."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, key, name="com", games=["commons"])
    done = await asyncio.to_thread(
        subprocess.run, [CLI, "agent", "run", f"{ROOT}/examples/dilemma_bot.py:PromiseKeeper",
                         "--server", server.url, "--key", key, "--agent", "com"],
        capture_output=True, text=True, timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert said.count("bot PromiseKeeper was written for dilemma") == 1, said
    assert "agent com: offline: 0 table(s) played, 0 failed" in said, said


def test_a_bot_that_cannot_be_made_is_named_as_written(tmp_path: Path) -> None:
    """`agent run needs.py:B` whose class needs arguments: the error names `needs.py:B` as
    typed — rich would print the `:B:` in "needs.py:B: cannot" as an emoji."""
    bot = tmp_path / "needs.py"
    bot.write_text("from cogleague.client import Bot\n\n\nclass B(Bot):\n"
                   "    def __init__(self, x: int) -> None:\n        pass\n", encoding="utf-8")
    done = subprocess.run([CLI, "agent", "run", f"{bot}:B", "--agent", "a", "--server",
                           "http://127.0.0.1:9", "--key", "k"], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"BOT {bot}:B: cannot make a B (TypeError:" in " ".join(done.stderr.split()), \
        done.stderr
