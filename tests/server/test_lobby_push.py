"""Lobby updates are pushed (`WS /ws/lobby`, lobby_feed.py): a table created, joined, started
and finished through one process reaches a Lobby socket on another process over PostgreSQL
`LISTEN/NOTIFY`, and on SQLite (one process) in-process. The socket is the one the Lobby page
opens; the test never polls the HTTP API for what it checks."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from cogleague.client import LobbyClient
from cogleague.client.connection import ws_url
from server.support import ServerProcess, new_account, operator


class LobbySocket:
    """A `/ws/lobby` connection and every frame it received, in order."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []

    async def next_where(self, pred: Callable[[dict[str, Any]], bool],
                         timeout_s: float = 20.0) -> dict[str, Any]:
        """The first table document pushed from now on that `pred` accepts."""
        async def wait() -> dict[str, Any]:
            while True:
                frame = json.loads(await self.ws.recv())
                self.frames.append(frame)
                if frame["type"] == "table" and pred(frame["table"]):
                    return dict(frame["table"])

        return await asyncio.wait_for(wait(), timeout_s)


async def _lobby_flow(maker: ServerProcess, watched: ServerProcess) -> None:
    async with connect(f"{ws_url(watched.url)}/ws/lobby", proxy=None,
                       compression=None) as ws:
        sock = LobbySocket(ws)
        first = json.loads(await asyncio.wait_for(ws.recv(), 20))
        assert first["type"] == "tables" and isinstance(first["tables"], list)
        _, creator = await new_account(maker)
        _, player = await new_account(maker)
        async with LobbyClient(maker.url, creator) as lobby:
            made = await lobby.create_table("dilemma", config={"rounds_total": 3},
                                            fill_with="tit_for_tat", pacing=False, seed=11)
        tid = made["id"]
        opened = await sock.next_where(lambda t: t["id"] == tid)
        assert opened["state"] == "open" and not any(s["taken"] for s in opened["seats"])
        async with LobbyClient(maker.url, player) as lobby:
            await lobby.join(tid, "scripted", baseline="always_defect", seat=2, name="secret-p")
        joined = await sock.next_where(lambda t: t["id"] == tid)
        assert [s["taken"] for s in joined["seats"]] == [False, False, True, False]
        async with LobbyClient(maker.url, creator) as lobby:
            await lobby.start(tid)
        states = [joined["state"]]
        while states[-1] != "finished":
            doc = await sock.next_where(lambda t: t["id"] == tid)
            states.append(doc["state"])
        # a process reads a changed table back when the notice arrives: a 3-round table of
        # baselines may have ended by then, and is pushed once, as finished (the Lobby shows
        # what is, not every state it passed through), but never out of order
        order = ["open", "running", "finished"]
        assert states[0] == "open" and states[-1] == "finished"
        assert states == sorted(states, key=order.index) and len(set(states)) == len(states)
        assert all(s["taken"] for s in doc["seats"])
        assert "secret-p" not in json.dumps(sock.frames)  # public documents only
        async with LobbyClient(maker.url, creator) as lobby:  # one more, aborted
            other = (await lobby.create_table("dilemma", pacing=False))["id"]
        await sock.next_where(lambda t: t["id"] == other and t["state"] == "open")
        async with operator(maker) as op:
            await op.abort(other)
        await sock.next_where(lambda t: t["id"] == other and t["state"] == "aborted")


async def test_lobby_updates_are_pushed_in_process_on_sqlite(
        tmp_path: Any, make_server: Callable[..., ServerProcess]) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'lobby.db'}")
    await _lobby_flow(server, server)


@pytest.mark.postgres
async def test_lobby_updates_cross_processes_through_postgres(
        pg_cluster: Any, make_server: Callable[..., ServerProcess]) -> None:
    db = pg_cluster.new_database()
    a = make_server(db)
    b = make_server(db)
    await _lobby_flow(a, b)
