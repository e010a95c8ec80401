"""The agent runner never leaves its socket reader behind, however its serving ends."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from cogleague.client.agent import AgentRunner
from cogleague.client.bot import Bot


def readers() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks()
            if getattr(t.get_coro(), "__qualname__", "") == "AgentRunner._read"]


async def lobby(ws: ServerConnection) -> None:
    """A server that greets, takes the ready and then keeps the socket open, saying nothing."""
    await ws.send(json.dumps({"type": "hello", "agent": "a1"}))
    ready = json.loads(await ws.recv())
    assert ready == {"type": "ready", "playing": []}
    await ws.wait_closed()


async def serving(stop_by: str) -> AgentRunner:
    async with serve(lobby, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        runner = AgentRunner(Bot, f"http://127.0.0.1:{port}", "key", "a1")
        stopper = asyncio.create_task(runner.stop.wait())
        async with connect(f"ws://127.0.0.1:{port}/", proxy=None) as ws:
            task = asyncio.create_task(runner._serve(ws, stopper))
            for _ in range(3000):
                if runner.run_state.hello:
                    break
                await asyncio.sleep(0.01)
            assert runner.run_state.hello["agent"] == "a1"
            assert len(readers()) == 1
            if stop_by == "cancel":
                task.cancel()
            else:
                runner.stop.set()
            await asyncio.wait({task})
            assert task.cancelled() == (stop_by == "cancel")
            assert readers() == []
        stopper.cancel()
    return runner


async def test_a_cancelled_serve_collects_its_reader() -> None:
    await serving("cancel")


async def test_a_stopped_serve_collects_its_reader_and_closes() -> None:
    await serving("stop")
