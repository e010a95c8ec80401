"""Helpers for tests with several server processes on one PostgreSQL database: gated bots
(hold a turn until the test lets go, so a process can be killed mid-table), a reconnecting
spectator, and table set-up across processes."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from cogleague.client import Bot, LobbyClient, TurnInfo
from cogleague.client.connection import ws_url
from server.support import ServerProcess, new_account


class Gate:
    """Bots play freely until `close_after` turns were asked of them in total, then hold
    their next turn until `release()`. `held` is set when the first bot is held."""

    def __init__(self, close_after: int) -> None:
        self.close_after = close_after
        self.asked = 0
        self.held = asyncio.Event()
        self.open = asyncio.Event()

    async def wait(self) -> None:
        self.asked += 1
        if self.asked > self.close_after and not self.open.is_set():
            self.held.set()
            await self.open.wait()

    def release(self) -> None:
        self.open.set()


class Gated(Bot):
    """Wraps a bot: same moves, but a turn may wait at the gate first."""

    def __init__(self, inner: Bot, gate: Gate) -> None:
        self.inner = inner
        self.gate = gate
        self.name = inner.name

    async def on_turn(self, turn: TurnInfo) -> Any:
        await self.gate.wait()
        return self.inner.on_turn(turn)

    def on_event(self, event: str, payload: dict[str, Any]) -> Any:
        return self.inner.on_event(event, payload)


@dataclass
class Spectator:
    """A `/ws/watch` socket to one process that reconnects with `last_seq` until `end`."""

    server: str
    table: str
    frames: list[dict[str, Any]] = field(default_factory=list)
    reconnects: int = 0

    @property
    def last_seq(self) -> int:
        return max([f["seq"] for f in self.frames if f["type"] == "event"], default=0)

    async def run(self, timeout_s: float = 120.0) -> dict[str, Any]:
        async def loop() -> dict[str, Any]:
            while True:
                query = urlencode({"table": self.table, "last_seq": self.last_seq})
                try:
                    async with connect(f"{ws_url(self.server)}/ws/watch?{query}",
                                       proxy=None, compression=None) as ws:
                        async for raw in ws:
                            frame = json.loads(raw)
                            self.frames.append(frame)
                            if frame["type"] == "end":
                                return frame
                except (ConnectionClosed, OSError, InvalidStatus):
                    pass
                self.reconnects += 1
                await asyncio.sleep(0.1)

        return await asyncio.wait_for(loop(), timeout_s)

    def events(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == "event"]


async def open_table(server: ServerProcess, game: str, lineup: list[Any], names: list[str], *,
                     seed: int, variant: str | None = None, config: dict[str, Any] | None = None
                     ) -> tuple[str, str, list[tuple[int, str]]]:
    """Create a table on `server` and seat the line-up (strings: scripted baselines).
    Returns the table id, the creator's key and (seat, token) of every remote seat."""
    _, creator = await new_account(server)
    async with LobbyClient(server.url, creator) as lobby:
        table = await lobby.create_table(game, variant=variant, config=config or {},
                                         seed=seed, pacing=False)
    remote = []
    for seat, member in enumerate(lineup):
        _, key = await new_account(server)
        async with LobbyClient(server.url, key) as lobby:
            if isinstance(member, str):
                await lobby.join(table["id"], "scripted", baseline=member, seat=seat,
                                 name=names[seat])
            else:
                joined = await lobby.join(table["id"], "remote", seat=seat, name=names[seat])
                remote.append((seat, joined["token"]))
    return table["id"], creator, remote
