"""`CoalescingTransport` over a real loopback socket: the writes of one loop tick leave in one
piece at the next tick, in order, and `close()` sends what is buffered before closing."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from cogleague.server.transport import WS_PROTOCOL, CoalescingTransport, CoalescingWebSocketProtocol


async def _pair() -> tuple[CoalescingTransport, socket.socket]:
    left, right = socket.socketpair()
    right.setblocking(False)
    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, left)
    return CoalescingTransport(transport, loop), right  # type: ignore[arg-type]


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


async def test_one_tick_of_writes_leaves_together_at_the_next_tick() -> None:
    transport, peer = await _pair()
    try:
        transport.write(b"one,")
        transport.writelines([b"two,", bytearray(b"three")])
        transport.write(b"")
        assert _read_all(peer) == b""  # still buffered during this tick
        assert transport.get_write_buffer_size() == len(b"one,two,three")
        await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        assert _read_all(peer) == b"one,two,three"
        transport.write(b"four")
        await asyncio.sleep(0.01)
        assert _read_all(peer) == b"four"
    finally:
        transport.close()
        peer.close()


async def test_close_flushes_before_closing() -> None:
    transport, peer = await _pair()
    try:
        transport.write(b"last words")
        transport.close()
        assert transport.is_closing()  # delegated to the real transport
        await asyncio.sleep(0.01)
        assert _read_all(peer) == b"last words"
        assert peer.recv(10) == b""  # then EOF
    finally:
        peer.close()


def test_text_frames_are_the_librarys_bytes() -> None:
    from websockets.frames import Frame, Opcode

    from cogleague.server.transport import text_frame

    for n in (0, 1, 125, 126, 127, 65535, 65536, 70000):
        payload = ("é" * n).encode()[:n]
        assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(
            mask=False, extensions=[]), n


async def test_an_accept_after_the_protocol_dropped_the_socket_ends_the_app_quietly(
        caplog: pytest.LogCaptureFixture) -> None:
    """The protocol drops a socket itself (a frame refused before the handshake, pongs
    nobody reads) while the app still awaits something before its accept (the table's row):
    the app's accept must end it as a client that left does. uvicorn's own accept does
    nothing on a closing transport, and the app's next send failed with a RuntimeError
    ("Exception in ASGI application" in the log; the abuse soak's server-error check)."""
    gate = asyncio.Event()
    ended: list[BaseException | None] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await gate.wait()  # the app's own awaits before it accepts
        try:
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": "end"})
        except BaseException as exc:
            ended.append(exc)
            raise
        ended.append(None)

    config = Config(app=app, ws=WS_PROTOCOL, log_level="warning")
    config.load()
    loop = asyncio.get_running_loop()
    proto = CoalescingWebSocketProtocol(config, ServerState(), {}, _loop=loop)
    left, right = socket.socketpair()
    try:
        await loop.connect_accepted_socket(lambda: proto, left)
        right.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                      b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      b"Sec-WebSocket-Version: 13\r\n\r\n")
        for _ in range(200):
            if getattr(proto, "scope", None) is not None:
                break
            await asyncio.sleep(0.01)
        gate.set()  # the app resumes at the next tick ...
        proto.data_received(b"\x81\x01x")  # ... after an unmasked frame dropped the socket
        for _ in range(200):
            if ended:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
    finally:
        right.close()
    assert ended and type(ended[0]).__name__ == "ClientDisconnected", ended
    assert "Exception in ASGI application" not in caplog.text, caplog.text
