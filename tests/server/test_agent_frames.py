"""A raw program on `WS /ws/agent` that gets a frame wrong is told which field and what it
accepts (with a short quote of what it sent), never a refusal that contradicts itself ("type
must be ready, … (got 'ready')" for a second `ready`) or a silent drop (`playing` entries that
are not table ids, a `done` naming no table). Real server process, real socket."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from season.season import account, register, season_file
from server.support import OPERATOR_KEY


async def _next(ws: ClientConnection, kind: str, timeout: float = 10.0) -> dict[str, Any]:
    async def loop() -> dict[str, Any]:
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == kind:
                return dict(frame)

    return await asyncio.wait_for(loop(), timeout)


CASES: list[tuple[list[str], list[str]]] = [
    (["ready"], ["frames are JSON objects", "ready, done, ping, pong", "'ready'"]),
    (['{"type": "ready"}', '{"type": "ready"}'], ["ready", "already", "once"]),
    (['{"type": "ready", "playing": [1, "t_x"]}'], ["playing", "table ids", "(got 1)"]),
    (['{"type": "ready"}', '{"type": "done"}'], ["table", "required", "table id"]),
]
"""Frames sent in order, and the words the error of the last one must hold."""


@pytest.mark.parametrize(("frames", "words"), CASES,
                         ids=["not-json", "ready-twice", "playing-ints", "done-no-table"])
async def test_an_agent_frame_refusal_names_the_field(
        make_server: Any, tmp_path: Path, frames: list[str], words: list[str]) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'league.db'}",
                         season=str(season_file(tmp_path, tables=1, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "raw")
    await register(server.url, key, name="raw", games=["dilemma"], cap=1)
    url = server.url.replace("http://", "ws://") + f"/ws/agent?agent=raw&key={key}"
    async with connect(url, proxy=None, compression=None) as ws:
        await _next(ws, "hello")
        for frame in frames:
            await ws.send(frame)
        error = await _next(ws, "error")
        assert error["code"] == "bad_frame", error
        missing = [w for w in words if w not in error["message"]]
        assert not missing, (missing, error["message"])
        await ws.send(json.dumps({"type": "ping"}))  # the socket stays open
        await _next(ws, "pong")
