"""A Ledger note with the wrong `subject`, sent over a real WebSocket to a live server: the
seat gets its `ack`, then a `wrong_shape` error naming the field and the alias it had to
review, and its move stands (the meeting settles it, unflagged). Gossip is cheap talk."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlencode

from websockets.sync.client import ClientConnection, connect

from cogleague.client import LobbyClient
from server.support import ServerProcess, new_account


def _next(ws: ClientConnection, *types: str) -> dict[str, Any]:
    while True:
        doc: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if doc["type"] in types:
            return doc


def test_a_wrong_subject_is_told_and_the_move_stands(shared_server: ServerProcess) -> None:
    async def seat() -> tuple[str, str]:
        _, key = await new_account(shared_server)
        async with LobbyClient(shared_server.url, key) as lobby:
            table = await lobby.create_table("ledger", variant="quickfire", seed=7,
                                             config={"decision_timeout_s": 5},
                                             pacing=False, fill_with="mirror")
            joined = await lobby.join(table["id"], "remote", seat=0)
            await lobby.start(table["id"])
        return table["id"], joined["token"]

    table, token = asyncio.run(seat())
    q = urlencode({"table": table, "seat": 0, "token": token, "last_seq": 0})
    with connect(shared_server.url.replace("http://", "ws://") + "/ws/play?" + q, proxy=None,
                 compression=None) as ws:
        first = _next(ws, "your_turn")
        ws.send(json.dumps({"type": "move", "turn_id": first["turn_id"], "move": 0}))
        assert _next(ws, "ack", "error")["type"] == "ack"
        turn = _next(ws, "your_turn")
        target = turn["visible_state"]["noteTarget"]
        top = turn["legal_actions"]["move"]["max"]
        ws.send(json.dumps({"type": "move", "turn_id": turn["turn_id"], "move": top,
                            "note": "they cheat", "subject": "Nobody"}))
        assert _next(ws, "ack", "error")["type"] == "ack"
        told = _next(ws, "ack", "error")
        assert (told["code"], told["turn_id"]) == ("wrong_shape", turn["turn_id"]), told
        assert told["message"].startswith(f"note dropped: subject must be {target!r}"), told
        assert "'Nobody'" in told["message"] and "move stands" in told["message"], told
        while True:
            event = _next(ws, "event")
            payload = event["payload"]
            if (event["event"] == "meeting" and payload["round"] == 1
                    and 0 in (payload["a"], payload["b"])):
                break
        side = "A" if payload["a"] == 0 else "B"
        assert payload[f"move{side}"] == top and payload[f"fallback{side}"] is False, payload
