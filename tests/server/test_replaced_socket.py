"""A seat's replaced socket can no longer act (protocol.md §3: the newest socket wins), even
while its close frame still waits behind frames the old peer has not read.

Real server process, real sockets: the old socket (a 4 KiB receive buffer, never read) makes
the server queue answers it does not take; the seat reconnects; the old socket then sends a
move for the pending turn. Before, that move was applied (the new socket saw the next round
start without having moved, and its own move got the old move's cached `ack`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from cogleague.client import LobbyClient
from server.rawws import next_frame, open_seat, play_url
from server.support import ServerProcess, new_account


async def test_a_replaced_socket_cannot_move_for_the_seat(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'replaced.db'}")
    _, key = await new_account(server)
    async with LobbyClient(server.url, key) as lobby:
        table = await lobby.create_table("dilemma", config={
            "rounds_total": 3, "seats": 3, "turn_deadline_ms": 20_000}, seed=5, pacing=False,
            fill_with="always_cooperate")
        tid = table["id"]
        token = (await lobby.join(tid, "remote", seat=0))["token"]

    host, port = server.url.removeprefix("http://").split(":")
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect((host, int(port)))
    raw.setblocking(False)
    old = await connect(play_url(server.url, tid, 0, token), proxy=None, sock=raw,
                        max_size=8 * 1024 * 1024, compression=None, max_queue=1)
    await next_frame(old, "snapshot")
    async with LobbyClient(server.url, key) as lobby:
        await lobby.start(tid)
    turn = await next_frame(old, "your_turn")
    for _ in range(80):  # ≈ 60 kB answers each, never read: the server must queue them
        await old.send(json.dumps({"type": "x" * 60_000}))
    await asyncio.sleep(1.5)  # the rate limit's tokens come back

    new = await open_seat(server.url, tid, 0, token)
    snapshot = await next_frame(new, "snapshot")
    assert snapshot["your_turn"]["turn_id"] == turn["turn_id"], (snapshot, turn)
    await old.send(json.dumps({"type": "move", "turn_id": turn["turn_id"], "action": "defect"}))

    seen: list[dict[str, Any]] = []
    with contextlib.suppress(TimeoutError):
        await next_frame(new, "your_turn", timeout=3.0, seen=seen)
    moved = [(f["type"], f.get("turn_id"), f.get("event")) for f in seen if f["type"] != "ping"]
    assert moved == [], f"the replaced socket's move was applied (pending: {turn['turn_id']})"
    await new.send(json.dumps({"type": "move", "turn_id": turn["turn_id"],
                               "action": "cooperate"}))
    assert (await next_frame(new, "ack"))["turn_id"] == turn["turn_id"]
    await new.close()
    old.transport.abort()
