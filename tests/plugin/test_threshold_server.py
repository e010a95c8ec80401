"""The fourth game on a real table server (`cogleague serve` on loopback): a remote SDK bot and
scripted seats play a table; the served results match the same line-up played in-process, and
the server's replay verifies. No line of the server knows the game."""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cogleague.client import Bot, LobbyClient, TurnInfo, play_seat
from cogleague.client.lobby import LobbyError
from cogleague.core import jsonio
from cogleague.core.episode import run_episode
from cogleague.core.verify import verify_replay
from cogleague.seats.inprocess import BotSeat
from cogleague.seats.scripted import ScriptedSeat
from cogleague.server.frames import validate_server_frame
from plugin.support import OPERATOR_KEY, Served, cli, need_plugin

need_plugin()

from cogleague_threshold import GAME  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "threshold"))

from topper_bot import Topper  # noqa: E402


class Recording(Topper):
    """The example bot, keeping every turn it was asked."""

    def __init__(self) -> None:
        self.turns: list[TurnInfo] = []

    def on_turn(self, turn: TurnInfo) -> dict[str, int]:
        self.turns.append(turn)
        return super().on_turn(turn)


SEED = 4242
SCRIPTED = {1: "matcher", 2: "reciprocator", 3: "free_rider"}
_names = itertools.count()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(tmp_path_factory.mktemp("threshold-server"))
    yield server
    server.stop()


async def _account(server: Served) -> str:
    async with LobbyClient(server.url, OPERATOR_KEY) as op:
        made = await op.create_account(f"thr{next(_names)}", 0)
    return str(made["api_key"])


async def _play(server: Served, bot: Bot) -> tuple[dict[str, Any], dict[str, Any], list[Any]]:
    creator = await _account(server)
    async with LobbyClient(server.url, creator) as lobby:
        games = {g["name"]: g for g in await lobby.games()}
        table = await lobby.create_table("threshold", variant="quick", config={"seats": 4},
                                         seed=SEED, pacing=False)
    frames: list[Any] = []
    key = await _account(server)
    async with LobbyClient(server.url, key) as lobby:
        joined = await lobby.join(table["id"], "remote", seat=0, name="topper")
    session = asyncio.create_task(play_seat(bot, server.url, table["id"], 0, joined["token"],
                                            on_frame=frames.append))
    for seat, baseline in SCRIPTED.items():
        async with LobbyClient(server.url, await _account(server)) as lobby:
            await lobby.join(table["id"], "scripted", baseline=baseline, seat=seat,
                             name=baseline)
    await asyncio.sleep(0.2)  # the socket is up before the first turn
    async with LobbyClient(server.url, creator) as lobby:
        await lobby.start(table["id"])
        await asyncio.wait_for(session, 60)
        results = await lobby.results(table["id"])
        replay = await lobby.replay(table["id"])
    assert games["threshold"]["viewer"] is None  # the Theater's generic renderer serves it
    return results, replay, frames


async def _reference() -> dict[str, Any]:
    """The same table in-process: the bot through `BotSeat`, the baselines as scripted seats."""
    names = ["topper", *SCRIPTED.values()]
    game = GAME.make("quick", {"seats": 4}, SEED, names, None)
    seats = [BotSeat(Topper(), game, 0, "topper"),
             *(ScriptedSeat(game.make_baseline(b, s), b) for s, b in SCRIPTED.items())]
    return (await run_episode(game, seats)).results


async def test_a_remote_bot_and_scripted_seats_play_a_threshold_table(
        served: Served, tmp_path: Path) -> None:
    bot = Recording()
    results, replay, frames = await _play(served, bot)
    doc = results
    assert doc["reason"] == "complete" and doc["rounds_played"] == 3
    reference = await _reference()
    assert doc["scores"] == reference["scores"]
    assert len(bot.turns) == 6  # pledge + contribute in each of 3 rounds
    assert {t.game for t in bot.turns} == {"threshold"}
    assert [next(iter(t.legal_actions)) for t in bot.turns] == ["pledge", "contribute"] * 3
    assert any(isinstance(f, dict) and f.get("type") == "end" for f in frames)
    for frame in frames:
        validate_server_frame(frame)  # the published frame schemas hold for this game too

    replay_doc = replay.get("replay", replay)
    assert replay_doc["format"] == "threshold.replay.v1"
    assert replay_doc["policies"][1:] == list(SCRIPTED.values())
    verify_replay(replay_doc, GAME)  # what `cogleague replay verify` calls
    path = tmp_path / "served-replay.json"
    jsonio.write(path, replay_doc)
    verified = cli("replay", "verify", str(path))
    assert verified.returncode == 0, verified.stdout + verified.stderr


async def test_the_server_publishes_the_game_its_rules_and_validates_its_config(
        served: Served) -> None:
    key = await _account(served)
    async with LobbyClient(served.url, key) as lobby:
        info = {g["name"]: g for g in await lobby.games()}["threshold"]
        assert info["seat_range"] == [3, 8] and info["fallback_baseline"] == "keeper"
        assert "threshold" in info["options"]["properties"]
        with pytest.raises(LobbyError) as refused:
            await lobby.create_table("threshold", config={"seats": 4, "threshold": 41})
    assert "threshold must be an integer in 1..40" in str(refused.value)
    rules = httpx.get(served.url + "/rules/threshold", timeout=10.0)
    assert rules.status_code == 200 and "provision-point" in rules.text
    web = {g["name"]: g for g in httpx.get(served.url + "/api/games", timeout=10.0
                                           ).json()["games"]}
    assert web["threshold"]["replay_format"] == "threshold.replay.v1"
    assert web["threshold"]["viewer"] is None  # the Theater draws it with its generic renderer
    # a person is told the turn's time before joining: the rules' own 10 s, for anyone
    assert web["threshold"]["human"] == {"config": {}, "deadline_s": 10.0}
    assert httpx.get(served.url + "/static/js/games/threshold.js", timeout=10.0
                     ).status_code == 404
    listed = httpx.get(served.url + "/api/docs", timeout=10.0).json()["docs"]
    assert {"name": "threshold", "title": "Threshold public goods"} in listed  # the Rules page
    page = httpx.get(served.url + "/api/docs/threshold", timeout=10.0).json()
    assert "<h2>A round</h2>" in page["html"]


@pytest.mark.slow
async def test_a_killed_server_resumes_the_threshold_table_from_its_log(
        tmp_path: Path) -> None:
    """SIGKILL mid-table, restart on the same database: the server rebuilds the game from its
    logged decisions (the game's `make` and the runner's log only) and the bot finishes it."""
    server = Served(tmp_path)
    try:
        creator = await _account(server)
        async with LobbyClient(server.url, creator) as lobby:
            table = await lobby.create_table("threshold", config={"seats": 4, "rounds": 50},
                                             seed=SEED, pacing=False)
        tid = table["id"]
        seen = [0]

        def count(frame: dict[str, Any]) -> None:
            seen[0] += frame.get("type") == "event"

        async with LobbyClient(server.url, await _account(server)) as lobby:
            joined = await lobby.join(tid, "remote", seat=0, name="topper")
        session = asyncio.create_task(play_seat(Topper(), server.url, tid, 0, joined["token"],
                                                reconnect_for_s=90, on_frame=count))
        for seat, baseline in SCRIPTED.items():
            async with LobbyClient(server.url, await _account(server)) as lobby:
                await lobby.join(tid, "scripted", baseline=baseline, seat=seat, name=baseline)
        await asyncio.sleep(0.2)
        async with LobbyClient(server.url, creator) as lobby:
            await lobby.start(tid)
        while seen[0] < 20 and not session.done():  # a few rounds in
            await asyncio.sleep(0.01)
        server.kill()
        assert not session.done()  # the bot waits to reconnect
        server.start()
        outcome = await asyncio.wait_for(session, 120)
        assert outcome.reconnects >= 1
        async with LobbyClient(server.url, creator) as lobby:
            served = await lobby.results(tid)
            replay = await lobby.replay(tid)
    finally:
        server.stop()
    names = ["topper", *SCRIPTED.values()]
    game = GAME.make("standard", {"seats": 4, "rounds": 50}, SEED, names, None)
    seats = [BotSeat(Topper(), game, 0, "topper"),
             *(ScriptedSeat(game.make_baseline(b, s), b) for s, b in SCRIPTED.items())]
    reference = (await run_episode(game, seats)).results
    assert served == reference and served["rounds_played"] == 50
    verify_replay(replay, GAME)
    assert "resumed 1 running table" in server.log.read_text()
