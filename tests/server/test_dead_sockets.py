"""A socket whose peer dies silently — no close frame, no FIN: a half-open TCP connection, or
a program frozen mid-read — is found by the WebSocket protocol's own pings
(`ws_ping_interval_s`) and closed when a pong is `ws_ping_timeout_s` late, so within their
sum the server lets go of it: an agent's standing socket stops counting the agent online (the
matchmaker no longer hands it seats it would never play). Real server process, a real client
that stops answering pings."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from cogleague.client import LobbyClient
from season.season import account, register, season_file
from server.support import OPERATOR_KEY


async def _online(url: str, key: str, name: str) -> bool:
    async with LobbyClient(url, key) as lobby:
        doc = await lobby.request("GET", "/agents?mine=true")
    return any(a["name"] == name and a.get("online") for a in doc["agents"])


async def _until(check: Any, want: bool, limit_s: float) -> bool:
    """Poll `check()` until it answers `want` or `limit_s` passes (a bound on the wait, not a
    timing assertion); the last answer."""
    deadline = time.monotonic() + limit_s
    answer = await check()
    while answer != want and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        answer = await check()
    return bool(answer)


async def test_an_agent_socket_that_stops_answering_pings_goes_offline(
        make_server: Any, tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'league.db'}",
                         season=str(season_file(tmp_path, tables=1, final_top=0)),
                         ws_ping_interval_s=0.5, ws_ping_timeout_s=0.5)
    key = await account(server.url, OPERATOR_KEY, "quiet")
    await register(server.url, key, name="quiet", games=["dilemma"], cap=1)
    url = server.url.replace("http://", "ws://") + f"/ws/agent?agent=quiet&key={key}"
    # the client's own pings off: it neither asks nor, once frozen, answers
    async with connect(url, proxy=None, compression=None, ping_interval=None) as ws:
        assert json.loads(await ws.recv())["type"] == "hello"
        await ws.send(json.dumps({"type": "ready"}))
        assert await _until(lambda: _online(server.url, key, "quiet"), True, 30)
        ws.transport.pause_reading()  # frozen: the socket stays open, no pong ever goes out
        gone = not await _until(lambda: _online(server.url, key, "quiet"), False, 60)
        assert gone, "the server still counts a socket that answers no ping as online"
