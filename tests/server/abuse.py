"""The hostile side of the abuse test: hypothesis strategies for bad frames, and an attacker
that throws them at a live server over real sockets (loopback only).

The attacker holds a seat at a table of its own (so out-of-turn and replayed turn ids are
meaningful), spectator sockets on the honest tables, a never-reading socket, half-open and
very slow raw sockets, and tries other seats' tokens at the upgrade. Everything it receives is
kept for the leak checks.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException
from websockets.sync.client import ClientConnection, connect

JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                         st.floats(allow_nan=False), st.text(max_size=40))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=12)
TYPES = st.sampled_from(["move", "resume", "ping", "pong", "hello", "event", "ack", "", "MOVE"])


@dataclass(frozen=True)
class Shot:
    """One hostile action: `kind` says what, `payload` the frame (text or bytes)."""

    kind: str
    payload: str | bytes = ""
    target: str = "seat"  # seat | watch | upgrade | flood
    count: int = 1
    pick: int | None = None  # replayed: which turn id seen so far (chosen when fired)


def _dumps(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False)


@st.composite
def shots(draw: st.DrawFn) -> Shot:
    """A hostile frame (or burst, or upgrade attempt)."""
    kind = draw(st.sampled_from(["malformed", "wrong_types", "oversized", "out_of_turn",
                                 "replayed", "random_shape", "binary", "flood", "token",
                                 "resume", "watch_move", "not_utf8", "ping_flood"]))
    target = "seat"
    if kind == "malformed":
        text = draw(st.text(max_size=200))
        payload: str | bytes = text + draw(st.sampled_from(["", "{", "}", "]", "\"", "\\"]))
    elif kind == "wrong_types":
        payload = _dumps({"type": draw(TYPES), "turn_id": draw(JSON_VALUES),
                          "action": draw(JSON_VALUES), "last_seq": draw(JSON_VALUES)})
    elif kind == "oversized":
        size = draw(st.integers(64 * 1024 + 1, 256 * 1024))
        payload = _dumps({"type": "move", "turn_id": "x", "note": "n" * size})
    elif kind in ("out_of_turn", "replayed"):
        turn = draw(st.text(min_size=1, max_size=30))
        payload = _dumps({"type": "move", "turn_id": turn,
                          "action": draw(st.sampled_from(["cooperate", "defect", "steal", 7])),
                          "message": draw(st.text(max_size=300))})
        if kind == "replayed":
            return Shot(kind, payload, "seat", 1, draw(st.integers(0, 10**6)))
    elif kind == "random_shape":
        payload = _dumps(draw(JSON_VALUES))
    elif kind == "binary":
        payload = draw(st.binary(max_size=300))
    elif kind == "flood":
        return Shot(kind, '{"type":"ping"}', "flood", draw(st.integers(120, 300)))
    elif kind == "not_utf8":  # sent as a text frame: the server closes the socket (1007)
        good = draw(st.text(max_size=40)).encode()
        payload = good + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80"]))
    elif kind == "ping_flood":  # WebSocket pings from a spectator that reads nothing
        return Shot(kind, draw(st.binary(max_size=125)), "wire")
    elif kind == "token":
        return Shot(kind, draw(st.text(max_size=40)), "upgrade")
    elif kind == "resume":
        payload = _dumps({"type": "resume", "last_seq": draw(st.integers(-10**12, 10**12))})
    else:  # a move on a spectator socket
        payload = _dumps({"type": "move", "turn_id": draw(st.text(max_size=20))})
        target = "watch"
    return Shot(kind, payload, target)


def ws_base(url: str) -> str:
    return url.replace("http://", "ws://")


@dataclass
class Attacker:
    server: str
    table: str
    seat: int
    token: str
    honest: list[tuple[str, int]]  # (table, seats) of honest tables, for watch and tokens
    received: list[str] = field(default_factory=list)  # every text frame, seat sockets
    watched: list[str] = field(default_factory=list)  # every text frame, watch sockets
    sent: int = 0
    refused: int = 0  # upgrades with a wrong token refused (as they must be)
    accepted_wrong: int = 0  # upgrades with a wrong token accepted (must stay 0)
    turn_ids: list[str] = field(default_factory=list)
    seat_ws: ClientConnection | None = None
    watch_ws: list[ClientConnection] = field(default_factory=list)
    raw: list[socket.socket] = field(default_factory=list)
    reconnects: int = 0
    ping_floods: int = 0
    ping_floods_dropped: int = 0  # must equal ping_floods: pongs nobody reads are not kept

    sockets: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)
    """Every WebSocket opened (`connect` as a context manager), closed by `close`."""

    def _connect(self, path: str) -> ClientConnection:
        """A socket the test thread reads only between shots (`drain`): no keepalive pings of
        its own, whose pongs it would leave unread while a shot or the honest tables' end
        keeps it busy — the client library would then fail the socket itself ("keepalive
        ping failed"). The server's pings still check it."""
        return self.sockets.enter_context(connect(
            f"{ws_base(self.server)}{path}", proxy=None, compression=None, max_size=2**22,
            ping_interval=None))

    def open(self) -> None:
        self._seat()
        for table, _ in self.honest:
            self.watch_ws.append(self._connect(f"/ws/watch?table={table}"))
        self._half_open()

    def _seat(self) -> None:
        q = urlencode({"table": self.table, "seat": self.seat, "token": self.token,
                       "last_seq": 0})
        self.seat_ws = self._connect(f"/ws/play?{q}")

    def _half_open(self) -> None:
        host, port = self.server.removeprefix("http://").split(":")
        for partial in (b"", b"GET /ws/play?table=", b"GET /ws/watch?table=x HTTP/1.1\r\n"):
            s = socket.create_connection((host, int(port)))
            s.sendall(partial)
            self.raw.append(s)
        # a never-reading spectator: the server must drop it, not wait for it
        s = socket.create_connection((host, int(port)))
        s.sendall(_upgrade_head(f"/ws/watch?table={self.honest[0][0]}"))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.raw.append(s)
        self.slow = socket.create_connection((host, int(port)))
        self.slow.sendall(_upgrade_head(f"/ws/watch?table={self.honest[0][0]}"))
        self.slow_frame = _masked(b'{"type":"ping"}')
        self.slow_at = 0

    def drip(self) -> None:
        """The very slow socket: one byte of a frame per call."""
        if self.slow_at < len(self.slow_frame):
            try:
                self.slow.sendall(self.slow_frame[self.slow_at:self.slow_at + 1])
            except OSError:
                return
            self.slow_at += 1
        else:
            self.slow_at = 0

    def drain(self) -> None:
        for ws, sink in [(self.seat_ws, self.received), *[(w, self.watched)
                                                         for w in self.watch_ws]]:
            if ws is None:
                continue
            while True:
                try:
                    msg = ws.recv(timeout=0)
                except TimeoutError:
                    break
                except (ConnectionClosed, WebSocketException, OSError):
                    break
                if isinstance(msg, str):
                    sink.append(msg)
                    if ws is self.seat_ws and '"your_turn"' in msg:
                        frame = json.loads(msg)
                        tid = frame.get("turn_id") or (frame.get("your_turn") or {}).get(
                            "turn_id")
                        if tid:
                            self.turn_ids.append(tid)

    def fire(self, shot: Shot) -> None:
        """One shot, then every socket read (each shot, whatever its kind)."""
        try:
            self._fire(shot)
        finally:
            self.drain()
            self.drip()

    def _fire(self, shot: Shot) -> None:
        if shot.target == "upgrade":
            self._upgrade(shot.payload if isinstance(shot.payload, str) else "")
            return
        if shot.target == "wire":
            self._ping_flood(shot.payload if isinstance(shot.payload, bytes) else b"")
            return
        if shot.target == "watch":
            sockets = self.watch_ws
        else:
            if self.seat_ws is None or self.seat_ws.state.name != "OPEN":
                self.reconnects += 1
                self._seat()
            sockets = [self.seat_ws] if self.seat_ws is not None else []
        if shot.pick is not None and self.turn_ids:  # a turn id this seat really was sent
            doc = json.loads(shot.payload)
            doc["turn_id"] = self.turn_ids[shot.pick % len(self.turn_ids)]
            shot = Shot(shot.kind, _dumps(doc), shot.target)
        for ws in sockets:
            for _ in range(shot.count):
                try:
                    ws.send(shot.payload, text=True)
                except (ConnectionClosed, WebSocketException, OSError):
                    break
                self.sent += 1

    def _ping_flood(self, payload: bytes) -> None:
        """Pings (up to `PING_FLOOD_BYTES`) on a spectator socket that never reads: the
        server must drop it rather than buffer its pongs. At most `PING_FLOODS_MAX` a run:
        each has the server parse a few hundred kilobytes of pings before it is dropped, and
        more of them prove nothing the first few did not (the shot is then left out)."""
        if self.ping_floods >= PING_FLOODS_MAX:
            return
        host, port = self.server.removeprefix("http://").split(":")
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(60)
        s.connect((host, int(port)))
        self.ping_floods += 1
        try:
            s.sendall(_upgrade_head(f"/ws/watch?table={self.honest[0][0]}"))
            burst = _masked(payload, opcode=0x9) * 256
            for _ in range(PING_FLOOD_BYTES // len(burst) + 1):
                s.sendall(burst)
        except (BrokenPipeError, ConnectionResetError):
            self.ping_floods_dropped += 1
        finally:
            s.close()

    def _upgrade(self, token: str) -> None:
        """Another seat's token (its own token for a seat it does not hold), or junk."""
        attempts = [(self.table, (self.seat + 1) % 2, self.token)]
        if self.honest:
            table, seats = self.honest[self.sent % len(self.honest)]
            attempts.append((table, self.sent % seats, token or self.token))
        for table, seat, tok in attempts:
            q = urlencode({"table": table, "seat": seat, "token": tok})
            self.sent += 1
            try:  # an upgrade not answered in 60 s fails the run (a liveness bound)
                with connect(f"{ws_base(self.server)}/ws/play?{q}", proxy=None,
                             open_timeout=60, ping_interval=None):
                    self.accepted_wrong += 1  # answered 101, whatever follows
            except InvalidStatus as exc:
                assert exc.response.status_code == 401, exc.response.status_code
                self.refused += 1

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.sockets.close()
        for s in [*self.raw, self.slow]:
            s.close()


PING_FLOOD_BYTES = 32 * 1024 * 1024
"""What one ping flood sends at most: far past what the server may buffer for a non-reader."""
PING_FLOODS_MAX = 6
"""Ping floods in one run (`Attacker._ping_flood`)."""


def _upgrade_head(path: str) -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n").encode()


def _masked(payload: bytes, opcode: int = 0x1) -> bytes:
    """A final client frame (masked, RFC 6455 §5.3) of at most 125 bytes: a text frame for
    the very slow raw socket, pings for the ping flood."""
    mask = b"\x01\x02\x03\x04"
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + body


def now_ms() -> float:
    return time.monotonic() * 1000
