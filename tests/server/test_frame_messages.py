"""A raw WebSocket client's malformed frame is refused with a `bad_frame` that names the field,
says what it accepts and quotes what was sent (protocol.md, `error`), never pydantic's or the
JSON parser's bare words ("Input should be a valid string", "Expecting value: line 1 column
1"); a `resume` whose `last_seq` is not a JSON integer the stream has reached is refused, not
read as another number. Real server on loopback, real WebSocket seat."""

from __future__ import annotations

import json

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from cogleague.client import LobbyClient
from server.rawws import next_frame, open_seat, send
from server.support import ServerProcess, new_account


@pytest.mark.parametrize(("raw", "words"), [
    ("cooperate", ["JSON object", "move, resume, pong, ping", "'cooperate'"]),
    ('{"type": "move", "turn_id": 5, "action": "cooperate"}',
     ["turn_id", "a text of 1..200 characters", "(got 5)"]),
    ('{"type": "move", "action": "cooperate"}', ["turn_id", "required", "1..200 characters"]),
    ('{"type": "resume", "last_seq": -3}', ["last_seq", "an integer", "at least 0", "(got -3)"]),
    ('{"type": "resume", "last_seq": "x"}', ["last_seq", "an integer", "(got 'x')"]),
    ('{"type": "resume", "last_seq": true}', ["last_seq", "an integer", "(got True)"]),
    ('{"type": "resume", "last_seq": 1.5}', ["last_seq", "an integer", "(got 1.5)"]),
    ('{"type": "resume", "last_seq": 99999}', ["last_seq", "in 0..", "(got 99999)"]),
    ('{"type": "resume", "last_seq": 0, "since": 2}', ["since", "last_seq"]),
])
async def test_a_malformed_frame_names_the_field_and_what_it_accepts(
        shared_server: ServerProcess, raw: str, words: list[str]) -> None:
    _, key = await new_account(shared_server)
    async with LobbyClient(shared_server.url, key) as lobby:
        table = await lobby.create_table("dilemma", pacing=False)
        token = (await lobby.join(table["id"], "remote", seat=0))["token"]
    ws = await open_seat(shared_server.url, table["id"], 0, token)
    await next_frame(ws, "snapshot")
    await ws.send(raw)
    frame = await next_frame(ws, "error")
    assert frame["code"] == "bad_frame", frame
    missing = [w for w in words if w not in frame["message"]]
    assert not missing, (missing, frame["message"])
    await send(ws, {"type": "ping"})  # the socket stays open
    await next_frame(ws, "pong")
    await ws.close()


@pytest.mark.parametrize("last_seq", ["abc", "-4", "1.5", "9" * 5000])
@pytest.mark.parametrize("path", ["play", "watch"])
async def test_a_malformed_last_seq_on_the_url_is_refused_naming_it(
        shared_server: ServerProcess, last_seq: str, path: str) -> None:
    """`&last_seq=abc` was read as 0 (every event again) and `-4` as 0: a silent fallback.
    The upgrade is refused with 400 `bad_request` naming the parameter and the value."""
    _, key = await new_account(shared_server)
    async with LobbyClient(shared_server.url, key) as lobby:
        table = await lobby.create_table("dilemma", pacing=False)
        token = (await lobby.join(table["id"], "remote", seat=0))["token"]
    url = (f"{shared_server.url.replace('http://', 'ws://')}/ws/{path}?table={table['id']}"
           f"&seat=0&token={token}&last_seq={last_seq}")
    with pytest.raises(InvalidStatus) as refused:
        async with connect(url, proxy=None):
            pass
    response = refused.value.response
    assert response.status_code == 400, response.status_code
    error = json.loads(response.body)["error"]
    assert error["code"] == "bad_request", error
    assert "last_seq: must be an integer" in error["message"], error
    assert f"(got '{last_seq[:20]}" in error["message"], error
