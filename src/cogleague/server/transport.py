"""uvicorn's sans-I/O WebSocket protocol, with the socket writes of one loop tick coalesced.

Every server frame is still its own WebSocket frame (protocol.md §3 is unchanged); what changes
is how they reach the kernel. uvicorn writes each ASGI `websocket.send` to the transport at
once, which on loopback is one `send(2)` per frame — about half of the server's CPU under load,
since one move makes ≈ 6 frames (your_turn, ack, each event to each seat). Here the bytes
written during one event-loop tick are buffered and handed to the real transport in one write
at the next tick (`loop.call_soon`). A frame waits at most one loop iteration; `close()`
flushes first, so nothing is reordered or lost. Flow control is the real transport's (its
high-water mark pauses the ASGI sender). (Waiting one iteration more would put a step's events
and the next `your_turn`, or an `ack` and the seat's next `your_turn`, into one write — 3.1 →
2.1 writes per move — but measured no CPU saving and doubled the p99 latency under load.)

Two more shortcuts for the hot path, both offered to the app in the scope's extensions:

- `SEND_NOW`: a synchronous text send. When the connection negotiated no extension (the SDK
  asks for no compression), the frame is built here — an unmasked server frame is a 2-, 4- or
  10-byte header and the payload (RFC 6455 §5.2), the bytes `websockets` would write — instead
  of through the library's generic framing; with an extension (a browser's permessage-deflate)
  the library frames it.
- `RECEIVE_NOW`: a synchronous text handler. Once the app sets one, each complete text
  message is handed to it inside `data_received` instead of being queued for the app's
  `receive()` (no queue, no task switch, no pause/resume of reading per message). Anything
  else — binary messages, the close, or a text message while earlier ones still wait in the
  queue — goes the ordinary ASGI way, so the order of messages is kept.

Its own bounds, for what never reaches the app, and what follows from them:

- A text message that is not valid UTF-8 fails the connection (RFC 6455 §8.1) with close 1007
  and a reason saying so, and a warning at most once a minute per client address — not
  uvicorn's traceback per message, which a client could repeat into the log at will.
- The protocol answers every WebSocket ping with a pong, written past flow control. A peer
  that pings without reading would make the server buffer pongs without end; once
  `PONG_BACKLOG_BYTES` of them were written while the peer is behind — more than
  `PONG_BACKLOG_BYTES` of what the server wrote not yet taken by it, counting the kernel's
  send queue — it is dropped. Flow control alone would count too late: the kernel's send
  buffer (autotuned up to `tcp_wmem`, 4 MiB) fills first, after millions of small pings
  (12-20 MiB, many CPU seconds) from each hostile socket.
- A peer that does read its pongs could still ping as fast as the loop answers, spending the
  CPU every table of the process shares. Each connection has a ping budget (a token bucket:
  `PINGS_PER_S`, bursts of `PING_BURST`); past it the connection is closed with 1008 and a
  reason saying the limit, and a warning at most once a minute per client address; during a
  closing handshake (the server still reads until the peer's reply or the close timeout) or
  before the 101, when no close frame can go, it is dropped. A keepalive pings every few
  seconds (`websockets`: every 20 s), far inside it.
- A frame the library refuses before the app accepted the socket (the client did not wait
  for the 101) fails the connection without a close frame to send; it is dropped with a
  warning, where uvicorn's assertion would log a traceback.
- An app that accepts a socket this protocol already dropped ends as after a client that left
  (`ClientDisconnected`), not with uvicorn's RuntimeError at its first send.

Use it with ``uvicorn.run(app, ws=WS_PROTOCOL)`` (as `cogleague serve` does).
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import struct
import termios
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from cogleague.server.loglimit import Throttled

WS_PROTOCOL = "cogleague.server.transport:CoalescingWebSocketProtocol"
"""What to pass as uvicorn's `ws` option."""

SEND_NOW = "cogleague.send_now"
"""ASGI scope extension: ``{"send_text": fn}``, `fn(text) -> bool` sends without awaiting."""

RECEIVE_NOW = "cogleague.receive_now"
"""ASGI scope extension: ``{"set_handler": fn}``; `fn(handler)` makes complete text messages
go to `handler(text)` synchronously (None: back to the ASGI queue)."""

PONG_BACKLOG_BYTES = 64 * 1024
"""Pong bytes written while the peer is behind by more than this many bytes (or flow control
paused the writes) before it is dropped: thousands of pings no client that reads its socket
leaves unanswered."""

PINGS_PER_S = 20
PING_BURST = 50
"""A connection's ping budget: `PINGS_PER_S` on average, `PING_BURST` at once. A keepalive
sends one every few seconds; a peer past this is flooding, and is closed with 1008."""

PING_FLOOD_REASON = f"too many pings: at most {PINGS_PER_S} a second (bursts of {PING_BURST})"
"""The close reason (code 1008) of a connection over its ping budget."""

NOT_UTF8_REASON = "text frames must be valid UTF-8"
"""The close reason (code 1007) of a text message that is not."""

log = logging.getLogger("cogleague.server")
wire_log = Throttled(log)


def kernel_unsent(sock: Any) -> int:
    """Bytes in `sock`'s kernel send queue the peer has not acknowledged (Linux `SIOCOUTQ`;
    `sock` a socket or asyncio's wrapper of one); 0 where that cannot be asked."""
    if sock is None:
        return 0
    try:
        out = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
    except (OSError, ValueError):  # closed, or a socket that does not say
        return 0
    return int(struct.unpack("i", out)[0])


def text_frame(payload: bytes) -> bytes:
    """An unmasked, final text frame (RFC 6455 §5.2), byte for byte what `websockets`
    serializes for a server without extensions."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 65536:
        return bytes((0x81, 126, n >> 8, n & 0xFF)) + payload
    return bytes((0x81, 127)) + n.to_bytes(8, "big") + payload


class CoalescingTransport:
    """Wraps a transport: `write` buffers until the next loop tick; everything else delegates."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._buffer: list[bytes] = []
        self._scheduled = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        self._buffer.append(bytes(data))
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self.flush)

    def writelines(self, chunks: Any) -> None:
        for chunk in chunks:
            self.write(chunk)

    def flush(self) -> None:
        self._scheduled = False
        if not self._buffer:
            return
        data = self._buffer[0] if len(self._buffer) == 1 else b"".join(self._buffer)
        self._buffer.clear()
        if not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._buffer.clear()
        self._transport.abort()

    def is_closing(self) -> bool:  # asked before every frame: no `__getattr__` detour
        return self._transport.is_closing()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(len(b) for b in self._buffer)

    def __getattr__(self, name: str) -> Any:  # is_closing, pause_reading, get_extra_info, …
        return getattr(self._transport, name)


class CoalescingWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's `websockets-sansio` protocol over a `CoalescingTransport`, offering the app a
    synchronous text send in the scope's extensions (`SEND_NOW`)."""

    on_text: Callable[[str], None] | None = None
    unread_pongs = 0
    """Pong bytes written since the peer fell behind (`behind`)."""
    ping_tokens = float(PING_BURST)
    """Pings this connection may still send at once (refilled at `PINGS_PER_S`)."""
    pinged_at: float | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.transport = CoalescingTransport(self.transport, self.loop)  # type: ignore[assignment]

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)  # builds self.scope and schedules the app
        if self.handshake_initiated and getattr(self, "scope", None) is not None:
            extensions = self.scope["extensions"]
            extensions[SEND_NOW] = {"send_text": self.send_text_now}
            extensions[RECEIVE_NOW] = {"set_handler": self.set_text_handler}

    def set_text_handler(self, handler: Callable[[str], None] | None) -> None:
        self.on_text = handler

    def _host(self) -> str:
        client = getattr(self, "client", None)
        return str(client[0]) if client else "?"

    def resume_writing(self) -> None:
        self.unread_pongs = 0
        super().resume_writing()

    def behind(self) -> bool:
        """Whether the peer is not taking what is written to it: flow control paused the
        writes, or more than `PONG_BACKLOG_BYTES` wait in this transport and the kernel."""
        if not self.writable.is_set():
            return True
        waiting = self.transport.get_write_buffer_size()
        if waiting <= PONG_BACKLOG_BYTES:
            waiting += kernel_unsent(self.transport.get_extra_info("socket"))
        return waiting > PONG_BACKLOG_BYTES

    def handle_ping(self) -> None:
        """The pong (the library queued it), unless the peer keeps pinging without reading."""
        data = b"".join(self.conn.data_to_send())
        if not self._ping_allowed():
            if self.transport.is_closing():  # already cut off: the rest of its read
                return
            host = self._host()
            wire_log.warn((host, "pings"), "closed a WebSocket from %s that pinged faster than "
                          "%d a second (bursts of %d)", host, PINGS_PER_S, PING_BURST)
            if self.conn.state is State.OPEN and not self.close_sent:  # the pong is dropped
                self.conn.send_close(1008, PING_FLOOD_REASON)
                self.handle_parser_exception()  # tells the app, writes the close, closes
            else:  # pings before the 101 (no close frame can be sent yet), or after a close
                self.close_sent = True  # was sent or received while the server still reads
                self.transport.abort()  # (until the reply or the close timeout): dropped
            return
        if self.close_sent:  # closing: no more pongs
            return
        if not self.behind():
            self.unread_pongs = 0  # it took what it was sent: whatever it owed is read
        else:
            self.unread_pongs += len(data)
            if self.unread_pongs > PONG_BACKLOG_BYTES:
                host = self._host()
                wire_log.warn((host, "pongs"), "dropped a WebSocket from %s that stopped "
                              "reading its pongs (over %d bytes unread)", host,
                              PONG_BACKLOG_BYTES)
                self.transport.abort()
                return
        self.transport.write(data)

    def _ping_allowed(self) -> bool:
        """Take one ping from the connection's budget (a token bucket); False when empty."""
        at = self.loop.time()
        if self.pinged_at is not None:
            self.ping_tokens = min(float(PING_BURST),
                                   self.ping_tokens + (at - self.pinged_at) * PINGS_PER_S)
        self.pinged_at = at
        if self.ping_tokens < 1.0:
            return False
        self.ping_tokens -= 1.0
        return True

    async def send(self, message: Any) -> None:
        """uvicorn's, except that an accept after this protocol dropped the socket (aborted
        above, its `connection_lost` not run yet) ends the app as a client that left does:
        uvicorn's accept does nothing on a closing transport, and the app's next send failed
        with a RuntimeError (a traceback in the log for every such drop)."""
        if (not self.handshake_complete and self.initial_response is None
                and self.transport.is_closing()):
            raise ClientDisconnected()
        await super().send(message)

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type != "text" or self.close_sent:
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        try:
            text = data.decode()
        except UnicodeDecodeError as exc:
            self.frames = []
            host = self._host()
            wire_log.warn((host, "utf8"), "closed a WebSocket from %s: a text frame was not "
                          "valid UTF-8 (%s)", host, exc.reason)
            self.conn.send_close(1007, NOT_UTF8_REASON)
            self.handle_parser_exception()  # tells the app, writes the close, closes
            return
        handler = self.on_text
        if handler is None or not self.queue.empty():
            super().send_receive_event_to_app()
            return
        self.frames = []
        try:
            handler(text)
        except Exception:  # the app's bug must not take the connection's parser down
            log.exception("the WebSocket text handler failed")

    def send_text_now(self, text: str) -> bool:
        """Frame `text` and write it at once (the transport coalesces). False when that is not
        possible now — before the handshake, once closing, or while the peer is not reading
        (flow control) — and the caller must use the ordinary ASGI send. The `websockets`
        library builds every frame (`Connection.send_text`), as for the ASGI send."""
        if (not self.handshake_complete or self.initial_response is not None or self.close_sent
                or self.disconnected or not self.writable.is_set()
                or self.transport.is_closing()):
            return False
        conn = self.conn
        if conn.state is not State.OPEN or conn.expect_continuation_frame:
            return False
        if conn.extensions or conn.writes:  # compression, or library bytes not yet written
            conn.send_text(text.encode())  # the library frames (and compresses)
            self.transport.write(b"".join(conn.data_to_send()))
            return True
        self.transport.write(text_frame(text.encode()))
        return True

    def handle_parser_exception(self) -> None:
        """uvicorn's, unless no close frame could be sent: a frame the library refuses while
        the app has not accepted the socket yet (the handshake is still CONNECTING) fails
        the connection without one, and uvicorn's assertion would log a traceback for it."""
        if self.conn.close_sent is not None:
            super().handle_parser_exception()
            return
        host = self._host()
        wire_log.warn((host, "early"), "dropped a WebSocket from %s: %s before its handshake "
                      "was complete", host, self.conn.parser_exc)
        self.close_sent = True  # nothing more is read or sent on it
        self.transport.abort()
