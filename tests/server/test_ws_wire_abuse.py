"""Hostile bytes below the JSON layer, from raw sockets at a live server (loopback only): text
frames that are not UTF-8, WebSocket pings from a peer that never reads the pongs, and pings
as fast as a peer that reads them can send (the ping budget).

Neither reaches the app's `FrameHandler`: the transport (`transport.py`) answers them, so its
own bounds are what keep the server's log and memory in check."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cogleague.client import LobbyClient
from server.support import ServerProcess, new_account

PING = 0x9
TEXT = 0x1
FLOOD_BYTES = 64 * 1024 * 1024
"""What the pinging peer sends at most without reading: far past any pong backlog the server
may hold for it (and past the kernel's buffers on both sides)."""


def _frame(opcode: int, payload: bytes) -> bytes:
    """A final client frame (masked, RFC 6455 §5.2-5.3) of at most 125 payload bytes."""
    assert len(payload) < 126
    mask = b"\x01\x02\x03\x04"
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes((0x80 | opcode, 0x80 | len(payload))) + mask + body


def _head(path: str) -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n").encode()


def _upgraded(url: str, path: str, rcvbuf: int | None = None,
              sndbuf: int | None = None) -> socket.socket:
    """A raw socket upgraded to a WebSocket at `path` (the 101 head read, nothing more)."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if sndbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    sock.settimeout(30)
    sock.connect((host, int(port)))
    sock.sendall(_head(path))
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        assert chunk, head
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the TCP connection (30 s at most)."""
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return data


def _tracebacks(log: Path) -> list[str]:
    return [line for line in log.read_text(errors="replace").splitlines()
            if "Traceback" in line or "ERROR" in line]


def _table(server: ServerProcess) -> str:
    """An open table to watch (spectator sockets need no key)."""
    async def make() -> str:
        _, key = await new_account(server)
        async with LobbyClient(server.url, key) as lobby:
            return str((await lobby.create_table("dilemma", start_timeout_s=600.0))["id"])

    return asyncio.run(make())


@pytest.fixture
def served(make_server: Callable[..., ServerProcess], tmp_path: Path) -> ServerProcess:
    return make_server(f"sqlite:///{tmp_path / 'server.db'}", record_league=False)


def test_a_text_frame_that_is_not_utf8_is_closed_1007_without_a_traceback(
        served: ServerProcess) -> None:
    table = _table(served)
    for _ in range(3):  # each a socket of its own: one log line, no traceback, for them all
        sock = _upgraded(served.url, f"/ws/watch?table={table}")
        try:
            sock.sendall(_frame(TEXT, b'{"type":"ping","x":"\xff\xfe"}'))
            data = _read_until_closed(sock)
        finally:
            sock.close()
        close = data[data.rfind(b"\x88"):]  # the close frame: 0x88, length, code, reason
        assert close[2:4] == (1007).to_bytes(2, "big"), data[-80:]
        assert b"UTF-8" in close[4:], close
    assert httpx.get(f"{served.url}/healthz").status_code == 200
    assert _tracebacks(served.log_path) == []
    assert "not valid UTF-8" in served.log_path.read_text()


def test_a_peer_that_pings_without_reading_is_dropped_not_buffered(
        served: ServerProcess) -> None:
    """Dropped by whichever bound comes first: a burst this fast meets the ping budget; a
    peer under it that never reads meets `PONG_BACKLOG_BYTES`, minutes later."""
    table = _table(served)
    sock = _upgraded(served.url, f"/ws/watch?table={table}", rcvbuf=4096)
    burst = _frame(PING, b"p" * 125) * 512
    sent = 0
    deadline = time.monotonic() + 120
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            while sent < FLOOD_BYTES and time.monotonic() < deadline:
                sock.sendall(burst)
                sent += len(burst)
    finally:
        sock.close()
    assert sent < FLOOD_BYTES, "the server kept answering pings nobody read"
    assert httpx.get(f"{served.url}/healthz").status_code == 200
    assert _tracebacks(served.log_path) == []
    said = served.log_path.read_text()  # the ping budget (1008) ends a burst like this one
    assert "pinged faster than" in said or "stopped reading its pongs" in said, said[-2000:]


async def _ping_flood(url: str, table: str, most: int) -> tuple[int, int | None, str]:
    """Pings one after another, each pong awaited (a peer that reads every pong), until the
    server closes or `most` were answered: (answered, close code, close reason)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    answered = 0
    async with connect(f"{url.replace('http://', 'ws://')}/ws/watch?table={table}",
                       proxy=None, ping_interval=None) as ws:
        try:
            while answered < most:
                await asyncio.wait_for(await ws.ping(), 30)
                answered += 1
        except ConnectionClosed:
            pass
        if answered < most:
            await asyncio.wait_for(ws.wait_closed(), 30)
        close = ws.protocol.close_rcvd
        return answered, close.code if close else None, close.reason if close else ""


def test_a_peer_that_pings_as_fast_as_it_reads_the_pongs_is_closed_1008(
        served: ServerProcess) -> None:
    """Reading every pong keeps the backlog bound quiet; the ping budget still ends it, with
    a close that says why, and one warning for the two sockets from the same address."""
    from cogleague.server.transport import PING_BURST, PINGS_PER_S

    table = _table(served)
    most = 20 * PING_BURST
    for _ in range(2):
        answered, code, reason = asyncio.run(_ping_flood(served.url, table, most))
        assert answered < most, "the server answered every ping of a flood"
        assert answered >= PING_BURST - 1, answered  # a burst passes before the budget bites
        assert code == 1008, (code, reason)
        assert f"at most {PINGS_PER_S} a second" in reason, reason
    assert httpx.get(f"{served.url}/healthz").status_code == 200
    assert _tracebacks(served.log_path) == []
    said = served.log_path.read_text()
    assert said.count("pinged faster than") == 1, said[-2000:]


def test_a_keepalive_client_is_untouched_by_the_ping_budget(served: ServerProcess) -> None:
    """A keepalive as `websockets` does it (a ping, its pong, the next ping after the
    interval), here every 0.05 s — 400 times its default pace — is answered every time and
    never closed."""
    from websockets.asyncio.client import connect

    table = _table(served)

    async def keepalive() -> tuple[int, int | None]:
        answered = 0
        async with connect(f"{served.url.replace('http://', 'ws://')}/ws/watch?table={table}",
                           proxy=None) as ws:  # the library's own keepalive on, too
            for _ in range(60):
                await asyncio.wait_for(await ws.ping(), 30)
                answered += 1
                await asyncio.sleep(0.05)
            await ws.close()
            return answered, ws.protocol.close_rcvd.code if ws.protocol.close_rcvd else None

    answered, code = asyncio.run(keepalive())
    assert (answered, code) == (60, 1000)
    assert "pinged faster than" not in served.log_path.read_text()


async def _idle_socket(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An ASGI app whose WebSockets are accepted and never written to: all the peer gets
    back is what the transport answers itself (its pongs)."""
    if scope["type"] == "websocket":
        await receive()  # the connect
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass


@contextlib.contextmanager
def in_process(app: Any) -> Iterator[str]:
    """`app` behind the real transport (`WS_PROTOCOL`) on a loopback uvicorn in this process,
    where a test can change the transport's constants; its URL."""
    import uvicorn

    from cogleague.server import transport
    from cogleague.server.listen import bind

    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, ws=transport.WS_PROTOCOL, log_level="warning",
                                           lifespan="off", ws_ping_interval=None))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    host, port = sock.getsockname()[:2]
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@pytest.fixture
def fresh_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """The transport's throttled warnings start afresh: one line per test, whatever ran
    before in this process."""
    from cogleague.server import transport
    from cogleague.server.loglimit import Throttled

    monkeypatch.setattr(transport, "wire_log", Throttled(transport.log))


@pytest.fixture
def backlog_only(monkeypatch: pytest.MonkeyPatch, fresh_log: None) -> Iterator[str]:
    """The real transport in this process with the ping budget lifted, so that only the
    unread-pong bound can stop a peer (at the real budget a flood meets the budget first, and
    a peer under it takes minutes to build 64 KiB of unread pongs)."""
    from cogleague.server import transport

    monkeypatch.setattr(transport, "PING_BURST", 1 << 30)
    monkeypatch.setattr(transport.CoalescingWebSocketProtocol, "ping_tokens", float(1 << 30))
    with in_process(_idle_socket) as url:
        yield url


@pytest.mark.parametrize("payload", [b"", b"p", b"p" * 16])
def test_a_peer_that_pings_without_reading_is_dropped_within_a_few_hundred_kib(
        backlog_only: str, payload: bytes, caplog: pytest.LogCaptureFixture) -> None:
    """Small pings are the expensive ones: each costs the server a frame to parse for a pong
    of 2 + len(payload) bytes. The backlog counts from the moment the peer is behind, the
    kernel's send queue included, not from when the kernel's send buffer (autotuned up to
    `tcp_wmem`'s 4 MiB) is full: that would take 12-20 MiB of pings (millions of frames, tens
    of CPU seconds on a loaded machine) per hostile socket (the client's own send buffer is
    kept small here, so what it could send is what the server took: 0.2-0.4 MiB)."""
    sent = _flood_unread(backlog_only, "/idle", payload)
    assert sent < PINGED_BYTES_MAX, f"{sent} bytes of pings before the drop"
    assert "stopped reading its pongs" in caplog.text, caplog.text[-2000:]


PINGED_BYTES_MAX = 2 * 1024 * 1024
"""Ping bytes a never-reading peer gets the server to take before it is dropped, at most."""


def _flood_unread(url: str, path: str, payload: bytes) -> int:
    """Pings of `payload` on a WebSocket at `path` that never reads (both socket buffers kept
    small, so what is sent is what the server took), until the server drops it or
    `FLOOD_BYTES` went: the bytes sent."""
    sock = _upgraded(url, path, rcvbuf=4096, sndbuf=4096)
    sock.settimeout(120)
    burst = _frame(PING, payload) * 512
    sent = 0
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            while sent < FLOOD_BYTES:
                sock.sendall(burst)
                sent += len(burst)
    finally:
        sock.close()
    return sent


async def _closing_socket(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An ASGI app that accepts a WebSocket and closes it at once (as a watched table's end
    does): the server then waits for the peer's close reply, still reading."""
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": 1000})


def test_a_ping_flood_during_the_servers_close_is_cut_off(
        fresh_log: None, caplog: pytest.LogCaptureFixture) -> None:
    """After the server's close frame it reads on until the peer answers or the close timeout
    passes; a peer that floods pings instead had the server parse all of it (tens of MiB)
    for that long. The ping budget holds then too: past it the connection is dropped."""
    with in_process(_closing_socket) as url:
        sent = _flood_unread(url, "/closing", b"p")
    assert sent < PINGED_BYTES_MAX, f"{sent} bytes of pings read during the close"
    assert "pinged faster than" in caplog.text, caplog.text[-2000:]
