"""A bot whose move is refused learns why within one round trip: the error frame comes at once
with the reason, the hint and the legal actions; the SDK logs it by default; `on_error` can
correct the move before the deadline."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from cogleague.client import Bot, LobbyClient, TurnInfo, play_seat
from server.rawws import next_frame, open_seat, send
from server.support import ServerProcess, new_account
from server.test_play import results, start, toy_table

LONG_DEADLINE_S = 30.0
"""Far longer than the test may take: anything that waited for it would fail the test."""


class WrongThenRight(Bot):
    """Sends a word where the toy game wants a number; corrects it when told."""

    def __init__(self) -> None:
        self.refusals: list[tuple[str, str]] = []

    def on_turn(self, turn: TurnInfo) -> Any:
        return {"n": "four"}

    def on_error(self, code: str, message: str, turn: TurnInfo) -> Any:
        self.refusals.append((code, message))
        return {"n": 4}


class Constant(Bot):
    def on_turn(self, turn: TurnInfo) -> Any:
        return {"n": 1}


async def test_a_refused_move_is_explained_at_once_and_corrected(
        shared_server: ServerProcess, caplog: pytest.LogCaptureFixture) -> None:
    tid, creator, joins = await toy_table(shared_server, seats=2, rounds=2,
                                          timeout_s=LONG_DEADLINE_S)
    bot = WrongThenRight()
    caplog.set_level(logging.WARNING, logger="cogleague.bot")
    tasks = [asyncio.create_task(play_seat(bot, shared_server.url, tid, 0, joins[0]["token"])),
             asyncio.create_task(play_seat(Constant(), shared_server.url, tid, 1,
                                           joins[1]["token"]))]
    await asyncio.sleep(0.2)
    await start(shared_server, tid, creator)
    # both rounds end long before one deadline: the refusal was answered, not waited out
    await asyncio.wait_for(asyncio.gather(*tasks), LONG_DEADLINE_S / 3)
    assert [code for code, _ in bot.refusals] == ["illegal_action", "illegal_action"]
    assert (await results(shared_server, tid))["scores"] == [8, 2]
    logged = [r.getMessage() for r in caplog.records if r.name == "cogleague.bot"]
    assert len(logged) == 2 and all("refused: illegal_action" in m and "legal:" in m
                                    for m in logged)


async def test_the_error_frame_carries_the_hint_and_the_legal_actions(
        shared_server: ServerProcess) -> None:
    tid, creator, joins = await toy_table(shared_server, seats=2, rounds=1,
                                          timeout_s=LONG_DEADLINE_S)
    other = asyncio.create_task(play_seat(Constant(), shared_server.url, tid, 1,
                                          joins[1]["token"]))
    async with await open_seat(shared_server.url, tid, 0, joins[0]["token"]) as ws:
        await start(shared_server, tid, creator)
        turn = await next_frame(ws, "your_turn")
        await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": "four"})
        error = await next_frame(ws, "error")
        assert error["code"] == "illegal_action" and error["turn_id"] == turn["turn_id"]
        assert error["legal_actions"] == turn["legal_actions"]
        assert isinstance(error["hint"], str) and error["hint"]
        await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 3})
        await next_frame(ws, "ack")
        end = await next_frame(ws, "end")
    await asyncio.wait_for(other, LONG_DEADLINE_S / 3)
    assert end["results"]["scores"] == 3


async def test_the_default_on_error_logs_and_lets_the_turn_run_out(
        shared_server: ServerProcess, caplog: pytest.LogCaptureFixture) -> None:
    class Stubborn(Bot):
        def on_turn(self, turn: TurnInfo) -> Any:
            return {"n": "four"}

    _, key = await new_account(shared_server)
    async with LobbyClient(shared_server.url, key) as lobby:
        table = await lobby.create_table("toy", config={"seats": 2, "rounds": 1,
                                                        "timeout_s": 0.5})
    joins = []
    for seat in range(2):
        _, k = await new_account(shared_server)
        async with LobbyClient(shared_server.url, k) as lobby:
            joins.append(await lobby.join(table["id"], "remote", seat=seat))
    caplog.set_level(logging.WARNING, logger="cogleague.bot")
    tasks = [asyncio.create_task(play_seat(Stubborn(), shared_server.url, table["id"], 0,
                                           joins[0]["token"])),
             asyncio.create_task(play_seat(Constant(), shared_server.url, table["id"], 1,
                                           joins[1]["token"]))]
    await asyncio.sleep(0.2)
    await start(shared_server, table["id"], key)
    await asyncio.wait_for(asyncio.gather(*tasks), 30)
    assert any("refused: illegal_action" in r.getMessage() for r in caplog.records)
