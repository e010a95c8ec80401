"""`CoalescingTransport` over a real loopback socket: the writes of one loop tick leave in one
piece at the next tick, in order, and `close()` sends what is buffered before closing."""

from __future__ import annotations

import asyncio
import socket

from cogleague.server.transport import CoalescingTransport


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
