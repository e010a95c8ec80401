"""A hostile program on `WS /ws/agent` (a real server process, real sockets): a broken frame gets
an `error` frame naming what is wrong and the socket stays open, and an agent that stops
reading its socket cannot stall the league for the other agents."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from websockets.asyncio.client import ClientConnection, connect

from season.season import account, register, season_file
from server.support import OPERATOR_KEY


async def _agent(url: str, key: str, name: str) -> ClientConnection:
    q = urlencode({"agent": name, "key": key})
    return await connect(url.replace("http://", "ws://") + "/ws/agent?" + q, proxy=None,
                         max_size=8 * 1024 * 1024, compression=None)


async def _next(ws: ClientConnection, kind: str, timeout: float = 10.0) -> dict[str, Any]:
    async def loop() -> dict[str, Any]:
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == kind:
                return dict(frame)

    return await asyncio.wait_for(loop(), timeout)


BROKEN: list[tuple[str | bytes, str]] = [
    (b'{"type": "ping"}', "binary"),
    ("[" * 5000 + "]" * 5000, "nested"),
    (json.dumps({"type": "ready", "playing": 5}), "playing"),
    (json.dumps({"type": "x" * 200_000}), "at most"),
]
"""A frame and a word its error message must hold."""


@pytest.mark.parametrize(("frame", "named"), BROKEN, ids=["binary", "deep", "playing", "huge"])
async def test_a_broken_agent_frame_gets_an_error_and_the_socket_stays_open(
        make_server: Any, tmp_path: Path, frame: str | bytes, named: str) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=1, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "mal")
    await register(server.url, key, name="mal", games=["dilemma"], cap=1)
    ws = await _agent(server.url, key, "mal")
    try:
        await _next(ws, "hello")
        await ws.send(frame)
        error = await _next(ws, "error")
        assert error["code"] in ("bad_frame", "too_large"), error
        assert named in error["message"], (named, error)
        assert len(error["message"]) < 1000, "the error must not echo a huge frame"
        await ws.send(json.dumps({"type": "ping"}))
        assert (await _next(ws, "pong"))["type"] == "pong"
    finally:
        await ws.close()
