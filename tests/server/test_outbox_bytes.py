"""A socket whose reader stopped is closed once its unread frames pass `outbox_max_bytes`, as
it is once they pass `OUTBOX_LIMIT` frames: counted in frames only, a few thousand sockets of
large (Ledger) frames could each hold hundreds of MB."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from pathlib import Path

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from cogleague.client import LobbyClient
from server.support import ServerProcess, new_account

OUTBOX_BYTES = 16 * 1024
"""About a hundred of the `error` frames below, far fewer than OUTBOX_LIMIT: the byte bound,
not the frame count, must close the socket."""
FLOOD = 80_000
"""Frames the client sends without reading an answer: each is refused with a ≈ 130-byte
`error` frame, ≈ 10 MB in all — more than the kernel's send buffer (4 MB at most on Linux)
and the transport's can hold, so the rest must wait in the socket's outbox."""


async def _logged(log: Path, line: str, within_s: float = 120.0) -> None:
    """Wait until the server's log says `line`: the outbox overflowed before the client reads
    again (reading earlier would drain it)."""
    for _ in range(int(within_s / 0.1)):
        if line in log.read_text(errors="replace"):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the server never logged {line!r}: {log.read_text()[-2000:]}")


def _tight_socket(url: str) -> socket.socket:
    """A TCP socket with a tiny receive buffer: a client that stops reading is felt at once."""
    host, port = url.removeprefix("http://").split(":")
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect((host, int(port)))
    raw.setblocking(False)
    return raw


async def test_a_spectator_that_stops_reading_is_closed_past_the_byte_bound(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'server.db'}", record_league=False,
                         outbox_max_bytes=OUTBOX_BYTES)
    _, key = await new_account(server)
    async with LobbyClient(server.url, key) as lobby:
        table = (await lobby.create_table("dilemma", start_timeout_s=600.0))["id"]
    url = server.url.replace("http://", "ws://") + f"/ws/watch?table={table}"
    # max_queue=1: the client library stops reading the socket once one frame waits unread
    ws = await connect(url, sock=_tight_socket(server.url), max_queue=1, compression=None,
                       proxy=None)
    try:
        for _ in range(FLOOD):
            await ws.send("1")
        await _logged(server.log_path, "stopped reading: too many unread bytes")
        received = 0
        with contextlib.suppress(ConnectionClosed):
            while True:
                await asyncio.wait_for(ws.recv(), 30)
                received += 1
        assert ws.close_code == 1008, (ws.close_code, ws.close_reason, received)
        # the byte bound, not the frame count (OUTBOX_LIMIT), closed it
        assert ws.close_reason == "too many unread bytes", ws.close_reason
        assert received < FLOOD, "what waited in the outbox is dropped, not sent"
    finally:
        ws.transport.abort()
    assert httpx.get(f"{server.url}/healthz").status_code == 200
