"""A bare WebSocket seat for tests that must send exactly the bytes they choose."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlencode

from websockets.asyncio.client import ClientConnection, connect

from cogleague.server.frames import validate_server_frame


def play_url(base: str, table: str, seat: int, token: str, last_seq: int = 0) -> str:
    q = urlencode({"table": table, "seat": seat, "token": token, "last_seq": last_seq})
    return base.replace("http://", "ws://") + "/ws/play?" + q


async def open_seat(base: str, table: str, seat: int, token: str, last_seq: int = 0
                    ) -> ClientConnection:
    return await connect(play_url(base, table, seat, token, last_seq), proxy=None,
                         max_size=8 * 1024 * 1024, compression=None)


async def next_frame(ws: ClientConnection, kind: str | None = None, timeout: float = 30.0,
                     seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The next frame (of `kind`, skipping others into `seen`)."""
    async def loop() -> dict[str, Any]:
        while True:
            frame = json.loads(await ws.recv())
            validate_server_frame(frame)
            if seen is not None:
                seen.append(frame)
            if kind is None or frame["type"] == kind:
                return frame

    return await asyncio.wait_for(loop(), timeout)


async def send(ws: ClientConnection, doc: Any) -> None:
    await ws.send(doc if isinstance(doc, str) else json.dumps(doc))
