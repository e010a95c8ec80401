"""A WebSocket refused at the upgrade says why in its body with the code HTTP uses for the
same status (protocol.md §2: 401 `unauthorized`, 404 `not_found`, 503 `unavailable`, which
also says when to reconnect, in `Retry-After` and in words). The
503 refusals (database unreachable, table moving between processes) need an outage or a
second process to happen, so `_deny` is served here as it is, by uvicorn on loopback."""

from __future__ import annotations

import json

import pytest
from fastapi import FastAPI, WebSocket
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from cogleague.server.play import _deny
from web.conftest import LiveServer


@pytest.mark.parametrize(("status", "code"), [(401, "unauthorized"), (404, "not_found"),
                                              (503, "unavailable")])
async def test_a_refused_upgrade_names_its_status(status: int, code: str) -> None:
    app = FastAPI()

    @app.websocket("/ws")
    async def refuse(ws: WebSocket) -> None:
        await _deny(ws, status, "refused for the test")

    with LiveServer(app) as server, pytest.raises(InvalidStatus) as refused:
        await connect(server.url.replace("http://", "ws://") + "/ws", proxy=None)
    response = refused.value.response
    assert response.status_code == status
    message = "refused for the test" + ("; reconnect in 1 s" if status == 503 else "")
    assert json.loads(response.body)["error"] == {"code": code, "message": message}
    assert response.headers.get("Retry-After") == ("1" if status == 503 else None)
