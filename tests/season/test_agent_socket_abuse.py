"""A hostile program on `WS /ws/agent` (a real server process, real sockets): a broken frame gets
an `error` frame naming what is wrong and the socket stays open, and an agent that stops
reading its socket cannot stall the league for the other agents."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from helpers.postgres import _pg_bindir
from season.season import account, post, query, register, season_file
from server.support import OPERATOR_KEY


async def _agent(url: str, key: str, name: str, sock: socket.socket | None = None
                 ) -> ClientConnection:
    q = urlencode({"agent": name, "key": key})
    return await connect(url.replace("http://", "ws://") + "/ws/agent?" + q, proxy=None,
                         max_size=8 * 1024 * 1024, compression=None, sock=sock)


async def _next(ws: ClientConnection, kind: str, timeout: float = 10.0) -> dict[str, Any]:
    async def loop() -> dict[str, Any]:
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == kind:
                return dict(frame)

    return await asyncio.wait_for(loop(), timeout)


BROKEN: list[tuple[str | bytes, str]] = [
    (b'{"type": "ping"}', "binary"),
    ("[" * 5000 + "]" * 5000, "nested"),
    (json.dumps({"type": "ready", "playing": 5}), "playing"),
    (json.dumps({"type": "x" * 200_000}), "at most"),
]
"""A frame and a word its error message must hold."""


@pytest.mark.parametrize(("frame", "named"), BROKEN, ids=["binary", "deep", "playing", "huge"])
async def test_a_broken_agent_frame_gets_an_error_and_the_socket_stays_open(
        make_server: Any, tmp_path: Path, frame: str | bytes, named: str) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=1, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "mal")
    await register(server.url, key, name="mal", games=["dilemma"], cap=1)
    ws = await _agent(server.url, key, "mal")
    try:
        await _next(ws, "hello")
        await ws.send(frame)
        error = await _next(ws, "error")
        assert error["code"] in ("bad_frame", "too_large"), error
        assert named in error["message"], (named, error)
        assert len(error["message"]) < 1000, "the error must not echo a huge frame"
        await ws.send(json.dumps({"type": "ping"}))
        assert (await _next(ws, "pong"))["type"] == "pong"
    finally:
        await ws.close()


async def test_an_agent_that_stops_reading_does_not_stall_the_league(
        make_server: Any, tmp_path: Path) -> None:
    """The hostile agent fills the server's send buffers (frames whose answers it never
    reads, a tiny receive buffer), then may be matched: the league's loop must still renew
    the other agent's presence (before: it waited forever to send the mute agent's `assign`;
    now the mute agent's socket is closed once its unread frames pass `OUTBOX_LIMIT`)."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=100000, max_running=4,
                                                    fill_after_s=0.2, final_top=0)))
    mal = await account(server.url, OPERATOR_KEY, "mal")
    ann = await account(server.url, OPERATOR_KEY, "ann")
    await register(server.url, mal, name="mute", games=["dilemma"], cap=1)
    await register(server.url, ann, name="fine", games=["dilemma"], cap=1)
    await post(server.url, mal, "/agents/mute/pause")  # not matched until it is stuck

    host, port = server.url.removeprefix("http://").split(":")
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect((host, int(port)))
    raw.setblocking(False)
    mute = await _agent(server.url, mal, "mute", sock=raw)
    fine = await _agent(server.url, ann, "fine")
    heard: list[dict[str, Any]] = []

    async def listen() -> None:
        async for text in fine:
            heard.append(json.loads(text))

    listener = asyncio.create_task(listen())
    try:
        await _next(mute, "hello")
        await mute.send(json.dumps({"type": "ready", "playing": []}))
        await fine.send(json.dumps({"type": "ready", "playing": []}))

        async def flood() -> None:
            for _ in range(200_000):
                await mute.send("1")  # each answered with a bad_frame error it never reads

        with contextlib.suppress(TimeoutError):  # the server stopped reading it
            await asyncio.wait_for(flood(), 10)
        await post(server.url, mal, "/agents/mute/resume")  # matched now, if still online
        time.sleep(8.0)  # longer than the presence's 5 s time to live

        def renewed() -> bool:  # a loaded machine may be between two ticks of the loop
            until = query(db, "SELECT p.until FROM agent_presence p JOIN agents a ON "
                              "a.id = p.agent_id WHERE a.name = 'fine'")
            return bool(until) and until[0][0] > time.time()

        deadline = time.monotonic() + 60
        while not renewed() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert renewed(), "the league loop stopped: fine is offline"
    finally:
        listener.cancel()
        await fine.close()
        mute.transport.abort()


@pytest.mark.postgres
async def test_an_agent_connecting_during_a_database_outage_is_told_to_retry(
        make_server: Any, tmp_path: Path) -> None:
    """A 503 (the SDK reconnects), not a 500 (the SDK gives up: `AgentRefused`)."""
    from server.test_db_outage import RestartableCluster

    bindir = _pg_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found")
    cluster = RestartableCluster(bindir).start()
    try:
        server = make_server(cluster.new_database(),
                             season=str(season_file(tmp_path, tables=1, final_top=0)))
        key = await account(server.url, OPERATOR_KEY, "ann")
        await register(server.url, key, name="later", games=["dilemma"], cap=1)
        cluster.halt()
        with pytest.raises(InvalidStatus) as refused:
            await _agent(server.url, key, "later")
        assert refused.value.response.status_code == 503
        assert b"unavailable" in (refused.value.response.body or b"")
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # halted: nothing to stop
            cluster.stop()


async def test_a_flood_of_agent_frames_is_rate_limited(make_server: Any, tmp_path: Path) -> None:
    """The agent socket has `/ws/play`'s per-connection frame rate (50/s, bursts of 100): a
    flood beyond it gets `rate_limited` instead of being parsed and answered, and the socket
    stays open (before: all 400 pings got a pong, at any rate)."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(season_file(tmp_path, tables=1, final_top=0)))
    key = await account(server.url, OPERATOR_KEY, "flo")
    await register(server.url, key, name="flood", games=["dilemma"], cap=1)
    ws = await _agent(server.url, key, "flood")
    try:
        await _next(ws, "hello")
        for _ in range(400):
            await ws.send(json.dumps({"type": "ping"}))
        answers = []
        while len(answers) < 400:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if frame["type"] in ("pong", "error"):
                answers.append(frame.get("code", frame["type"]))
        assert answers.count("rate_limited") >= 200, answers.count("rate_limited")
        assert set(answers) == {"pong", "rate_limited"}, set(answers)
        await asyncio.sleep(0.1)  # the bucket refills; the socket was never closed
        await ws.send(json.dumps({"type": "ping"}))
        assert (await _next(ws, "pong"))["type"] == "pong"
    finally:
        await ws.close()
