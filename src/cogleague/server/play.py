"""WebSocket play and watch (protocol.md §3): `/ws/play` for a seat, `/ws/watch` for spectators.

On connect a seat gets `hello`, the events after its `last_seq` (query parameter, default 0:
all of them), then a `snapshot` with its pending `your_turn`. Every frame it sends is checked
for size, rate, JSON and shape before anything else; a bad frame gets an `error` frame and the
socket stays open. A wrong token is refused at the upgrade (HTTP 401).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, WebSocket
from fastapi.responses import Response
from sqlalchemy import Connection as DbConnection
from sqlalchemy import select
from starlette.websockets import WebSocketDisconnect

from cogleague.core import jsonio
from cogleague.server import frames, reclaim, textguard
from cogleague.server.auth import matches
from cogleague.server.channels import SeatChannel, Stream, WatchChannel
from cogleague.server.dbretry import Unavailable
from cogleague.server.errors import ApiError
from cogleague.server.limits import (
    TOO_DEEP_MESSAGE,
    json_too_deep,
    oversized,
    rate_limited_message,
    too_large_message,
)
from cogleague.server.live import Room, seat_results
from cogleague.server.loglimit import Throttled
from cogleague.server.mirror import mirror_for
from cogleague.server.settings import OUTBOX_MAX_BYTES, Settings
from cogleague.server.store import loads, seats
from cogleague.server.tables import TableService
from cogleague.server.transport import RECEIVE_NOW, SEND_NOW

log = logging.getLogger("cogleague.server")
router = APIRouter()
frame_log = Throttled(log)
REFUSED: Counter[str] = Counter()
"""Frames refused by this process, by error code."""

WATCH_TAIL = 500
"""Events a spectator joining a table is sent before its snapshot (the latest ones): the
snapshot has the state, so a long table's whole history is not replayed to every watcher.
A `resume` (seat or spectator) gets the same tail at most, then a snapshot when it asked for
older events: a 30-byte frame cannot make the server resend a long table's whole stream."""

RESUME_BURST, RESUME_EVERY_S = 5, 10.0
"""A socket's `resume`s: a few at once, then one every so often (`rate_limited` beyond); a
seat that lost more reconnects with ``last_seq``, which still gets every event it missed."""

RETRY_AFTER_S = 1
"""The wait a socket refused for passing trouble (the database away, its table between
processes) is told, as HTTP's 503 tells it (app.py)."""

OUTBOX_LIMIT = 10_000
"""Frames queued for one socket before it is deemed dead and closed (a slow reader must not
hold the table's memory hostage); `Settings.outbox_max_bytes` bounds the same queue's bytes."""


def utf8_len(text: str) -> int:
    """The bytes `text` takes on the wire (no encoding for the usual ASCII frame)."""
    return len(text) if text.isascii() else len(text.encode())


class SocketConn:
    """One accepted socket: an outbox drained by its own writer task.

    Under `CoalescingWebSocketProtocol` a frame is written at once when nothing is queued
    and the peer keeps up (no task switch, no ASGI round trip); otherwise it waits in the
    outbox, in order, as before."""

    def __init__(self, ws: WebSocket, max_bytes: int = OUTBOX_MAX_BYTES) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue()
        self.closed = False
        self.token_digest: str | None = None
        """The seat token's digest this socket was opened with (reclaim.py closes it when
        the seat is taken back with a new one); None for spectators."""
        self.max_bytes = max_bytes
        self.queued_bytes = 0
        now = ws.scope.get("extensions", {}).get(SEND_NOW)
        self.send_now: Callable[[str], bool] | None = now["send_text"] if now else None
        self.writer = asyncio.create_task(self._write())

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self.send_now is not None and self.queue.empty() and self.send_now(text):
            return
        if self.queue.qsize() >= OUTBOX_LIMIT:
            self.overflow("too many unread frames", f"{OUTBOX_LIMIT} frames")
            return
        size = utf8_len(text)
        if self.queued_bytes + size > self.max_bytes:
            self.overflow("too many unread bytes", f"{self.max_bytes} bytes")
            return
        self.queued_bytes += size
        self.queue.put_nowait(text)

    def overflow(self, reason: str, bound: str) -> None:
        """The peer stopped reading: drop what it will never get (the memory goes now, not
        when the socket finally dies) and close it (1008) as soon as the frame being written
        is out; a seat reconnects with ``last_seq`` and misses nothing."""
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queued_bytes = 0
        client = self.ws.client
        host = client.host if client else "?"
        frame_log.warn((host, "outbox"), "closed a socket from %s that stopped reading: %s "
                       "(over %s queued)", host, reason, bound)
        self.close(1008, reason)

    def close(self, code: int, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.queue.put_nowait((code, reason))

    async def _write(self) -> None:
        try:
            while True:
                item = await self.queue.get()
                if isinstance(item, tuple):
                    await self.ws.close(item[0], item[1])
                    return
                self.queued_bytes -= utf8_len(item)
                await self.ws.send_text(item)
        except Exception:  # the peer went away; the reader notices too
            self.closed = True

    async def finish(self) -> None:
        self.close(1000, "bye")
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer, 2.0)


class RateLimit:
    """A token bucket: `rate` frames per second on average, bursts up to `burst`. `clock`
    (monotonic seconds) is injectable so the refill can be tested without waiting."""

    def __init__(self, rate: float, burst: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst = rate, float(burst)
        self.clock = clock
        self.tokens = float(burst)
        self.at = clock()

    def allow(self) -> bool:
        t = self.clock()
        self.tokens = min(self.burst, self.tokens + (t - self.at) * self.rate)
        self.at = t
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


def _int_param(ws: WebSocket, name: str, default: int | None = None) -> int | None:
    raw = ws.query_params.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        return None


def _last_seq(ws: WebSocket) -> int | str:
    """The `last_seq` query parameter (0 when absent), or why it is refused: read as 0 it
    would replay every event to a client that asked for something else."""
    raw = ws.query_params.get("last_seq")
    if raw is None:
        return 0
    if raw.isascii() and raw.isdigit() and len(raw) <= 18:  # no stream is longer
        return int(raw)
    return ("last_seq: must be an integer of at least 0, the seq of the last event received "
            f"(got {frames.excerpt(repr(raw))})")


async def _deny(ws: WebSocket, status: int, message: str) -> None:
    """Refuse at the upgrade: HTTP `status` when the server supports it, else close 1008.
    A 503 is passing trouble: it says when to come back (`Retry-After`, and in words)."""
    code = {400: "bad_request", 401: "unauthorized", 503: "unavailable"}.get(
        status, "not_found")  # as HTTP says
    headers = {}
    if status == 503:
        message = f"{message}; reconnect in {RETRY_AFTER_S} s"
        headers["Retry-After"] = str(RETRY_AFTER_S)
    body = jsonio.dumps({"error": {"code": code, "message": message}})
    try:
        await ws.send_denial_response(Response(body, status_code=status, headers=headers,
                                               media_type="application/json"))
    except RuntimeError:
        await ws.close(1008, message)


async def _redirect(ws: WebSocket, base_url: str) -> None:
    """HTTP 307 at the upgrade to the same path and query on `base_url` (the SDK, like any
    client built on the `websockets` library, follows it)."""
    target = ws_base(base_url) + ws.url.path + (f"?{ws.url.query}" if ws.url.query else "")
    body = jsonio.dumps({"error": {"code": "moved", "message": f"served by {base_url}"}})
    await ws.send_denial_response(Response(body, status_code=307, headers={"Location": target},
                                           media_type="application/json"))


def ws_base(url: str) -> str:
    url = url.rstrip("/")
    for http, wsp in (("https://", "wss://"), ("http://", "ws://")):
        if url.startswith(http):
            return wsp + url[len(http):]
    return url


async def _ended(ws: WebSocket, stream: Stream, row: dict[str, Any], seat: int | None) -> None:
    """A finished or aborted table: `end` with the stored results, then a normal close."""
    results = loads(row["results"])
    if seat is not None:
        results = seat_results(results, seat, row["num_seats"])
    await ws.accept()
    await ws.send_text(stream.frame("end", reason=row["reason"], results=results))
    await ws.close(1000, "table ended")


@router.websocket("/ws/play")
async def play(ws: WebSocket) -> None:
    svc: TableService = ws.app.state.tables
    table_id = ws.query_params.get("table", "")
    seat = _int_param(ws, "seat")
    token = ws.query_params.get("token")
    last_seq = _last_seq(ws)
    if isinstance(last_seq, str):
        await _deny(ws, 400, last_seq)
        return
    try:
        row, _ = await svc.row(table_id)
    except ApiError:
        await _deny(ws, 404, "unknown table")
        return
    except Unavailable:
        await _deny(ws, 503, "the database is unavailable")
        return

    recheck = reclaim.since(svc, table_id, seat if seat is not None else -1)

    def read_digest(conn: DbConnection) -> str | None:
        return conn.execute(select(seats.c.token_digest).where(
            seats.c.table_id == table_id, seats.c.seat == seat)).scalar_one_or_none()

    # A seat outside the table is refused without a query (no database integer holds every
    # number a query string can carry).
    known = seat is not None and 0 <= seat < row["num_seats"]
    try:
        stored = await svc.store.tx(read_digest) if known else None
    except Unavailable:
        await _deny(ws, 503, "the database is unavailable")
        return
    if not matches(token, stored):
        await _deny(ws, 401, "wrong seat or token")
        return
    assert seat is not None
    if row["state"] in ("finished", "aborted"):
        await _ended(ws, Stream(table_id), row, seat)
        return
    if row["state"] == "running" and table_id not in svc.live:
        try:
            home = await svc.seat_home(row)
        except Exception:  # the take-over failed: another seat's connect or the lease loop
            log.exception("table %s: could not take it over for a seat", table_id)  # retries
            home = None
        if home is not None:  # another process runs it: the SDK follows the redirect
            await _redirect(ws, home)
            return
        if table_id not in svc.live:
            await _deny(ws, 503, "the table is moving between server processes")
            return
    room = svc.rooms.get(table_id) or svc.room(row)
    channel = room.channels[seat]
    await _serve(ws, room, channel, svc.settings, last_seq, stored, recheck)


@router.websocket("/ws/watch")
async def watch(ws: WebSocket) -> None:
    svc: TableService = ws.app.state.tables
    table_id = ws.query_params.get("table", "")
    last_seq = _last_seq(ws)
    if isinstance(last_seq, str):
        await _deny(ws, 400, last_seq)
        return
    try:
        row, _ = await svc.row(table_id)
    except ApiError:
        await _deny(ws, 404, "unknown table")
        return
    except Unavailable:
        await _deny(ws, 503, "the database is unavailable")
        return
    if row["state"] in ("finished", "aborted"):
        await _ended(ws, Stream(table_id), row, None)
        return
    if table_id in svc.live or row["state"] == "open":
        room = svc.rooms.get(table_id) or svc.room(row)
    else:  # run by another process: its public stream, rebuilt from the database
        room = (await mirror_for(svc, table_id)).room
    # a late spectator: the snapshot + a tail
    await _serve(ws, room, room.watch, svc.settings, max(last_seq, room.watch.seq - WATCH_TAIL))


async def _serve(ws: WebSocket, room: Room, channel: SeatChannel | WatchChannel,
                 settings: Settings, last_seq: int, token_digest: str | None = None,
                 attached: Callable[[], None] | None = None) -> None:
    await ws.accept()
    conn = SocketConn(ws, settings.outbox_max_bytes)
    conn.token_digest = token_digest
    conn.send_text(room.hello(channel))
    for text in channel.events_after(last_seq):
        conn.send_text(text)
    if channel.end_text is not None:
        conn.send_text(channel.end_text)
        await conn.finish()
        return
    conn.send_text(room.snapshot(channel))
    channel.attach(conn)
    if attached is not None:  # a seat taken back since its token was read: check it again
        attached()
    pinger = asyncio.create_task(_ping(conn, channel, settings.ping_interval_s))
    try:
        await _read(ws, conn, channel, settings, lambda: room.snapshot(channel))
    finally:
        pinger.cancel()
        channel.detach(conn)
        conn.closed = True
        conn.writer.cancel()


async def _ping(conn: SocketConn, channel: Stream, interval: float) -> None:
    while not conn.closed:
        await asyncio.sleep(interval)
        conn.send_text(channel.frame("ping"))


class FrameHandler:
    """Everything a socket's incoming text frame gets, in one synchronous call: size, rate,
    JSON and shape checks, then the move (its `ack` or `error`), `resume` or `ping`. Under
    `CoalescingWebSocketProtocol` it runs inside the protocol's `data_received`
    (`RECEIVE_NOW`); otherwise `_read` calls it for each message it awaits."""

    def __init__(self, conn: SocketConn, channel: SeatChannel | WatchChannel,
                 settings: Settings, snapshot: Callable[[], str]) -> None:
        self.conn = conn
        self.channel = channel
        self.settings = settings
        self.snapshot = snapshot
        self.limit = RateLimit(settings.moves_per_second, settings.move_burst)
        self.resumes = RateLimit(1 / RESUME_EVERY_S, RESUME_BURST)
        self.max_bytes = settings.max_frame_bytes

    def refuse(self, code: str, message: str) -> None:
        """One `error` frame, counted, and at most one log line per client and kind a
        minute (`loglimit.py`)."""
        self.conn.send_text(channel_error(self.channel, code, message))
        REFUSED[code] += 1
        client = self.conn.ws.client
        host = client.host if client else "?"
        frame_log.warn((host, code), "refused a frame from %s: %s (%d %s so far)", host,
                       message, REFUSED[code], code)

    def bytes(self, data: bytes) -> None:
        if len(data) > self.max_bytes:
            self.conn.send_text(channel_error(self.channel, "too_large",
                                              too_large_message(self.max_bytes)))
            return
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            self.conn.send_text(channel_error(self.channel, "bad_frame",
                                              "frames are UTF-8 JSON text"))
            return
        self.text(text)

    def text(self, text: str) -> None:
        conn, channel, max_bytes = self.conn, self.channel, self.max_bytes
        if conn.closed:  # replaced by a newer socket (or closing): it may no longer act, even
            return       # while its close frame still waits behind frames it has not read
        if oversized(text, max_bytes):
            conn.send_text(channel_error(channel, "too_large", too_large_message(max_bytes)))
            return
        if not self.limit.allow():
            conn.send_text(channel_error(
                channel, "rate_limited", rate_limited_message(self.settings.moves_per_second)))
            return
        if json_too_deep(text):
            self.refuse("bad_frame", TOO_DEEP_MESSAGE)
            return
        try:
            doc = json.loads(text)
            fault = textguard.frame_fault(text, doc)  # before anything could echo its text
            if fault is None:
                move = frames.fast_move(doc)
                frame = frames.parse_client_frame(doc) if move is None else None
        except json.JSONDecodeError as exc:
            conn.send_text(channel_error(channel, "bad_frame",
                                         f"bad frame: {frames.not_json(exc, text)}"))
            return
        except (ValueError, RecursionError, frames.BadFrame) as exc:
            conn.send_text(channel_error(channel, "bad_frame", f"bad frame: {exc}"))
            return
        except Exception as exc:  # nothing a client sends may reach the log as a traceback
            self.refuse("bad_frame", f"bad frame: unreadable JSON ({type(exc).__name__})")
            return
        if fault is not None:
            conn.send_text(channel_error(channel, textguard.BAD_TEXT, fault))
            return
        if move is not None or isinstance(frame, frames.Move):
            if not isinstance(channel, SeatChannel):
                conn.send_text(channel_error(channel, "not_your_turn",
                                             "spectators cannot send moves"))
                return
            if move is None:
                assert isinstance(frame, frames.Move)
                move = (frame.turn_id, frames.move_fields(frame))
            conn.send_text(channel.on_move(*move))
        elif isinstance(frame, frames.Resume):
            self.resume(frame.last_seq)
        elif isinstance(frame, frames.ClientPing):
            conn.send_text(channel.frame("pong"))
        # a pong needs no answer

    def resume(self, last_seq: int) -> None:
        """The events after `last_seq`, the last `WATCH_TAIL` at most (then the snapshot that
        stands for the older ones), `RESUME_BURST` times at once, then every `RESUME_EVERY_S`."""
        if not self.resumes.allow():
            self.refuse("rate_limited", f"at most {RESUME_BURST} resumes at once, then one "
                                        f"every {RESUME_EVERY_S:g} s; reconnect with last_seq "
                                        "to get every missed event")
            return
        if last_seq > self.channel.seq:  # not a number this stream sent: a client's mix-up
            self.refuse("bad_frame", f"bad frame: last_seq: must be an integer in "
                                     f"0..{self.channel.seq}, the seq of the last event this "
                                     f"stream sent (got {frames.excerpt(str(last_seq))})")
            return
        after = max(last_seq, self.channel.seq - WATCH_TAIL)
        for event_text in self.channel.events_after(after):
            self.conn.send_text(event_text)
        if after > last_seq:
            self.conn.send_text(self.snapshot())


async def _read(ws: WebSocket, conn: SocketConn, channel: SeatChannel | WatchChannel,
                settings: Settings, snapshot: Callable[[], str]) -> None:
    handler = FrameHandler(conn, channel, settings, snapshot)
    receive_now = ws.scope.get("extensions", {}).get(RECEIVE_NOW)
    if receive_now is not None:  # text frames bypass this loop from now on
        receive_now["set_handler"](handler.text)
    try:
        while True:
            try:
                message = await ws.receive()
            except (WebSocketDisconnect, RuntimeError):
                return
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                handler.bytes(message.get("bytes") or b"")
            else:
                handler.text(text)
    finally:
        if receive_now is not None:
            receive_now["set_handler"](None)


def channel_error(channel: Stream, code: str, message: str) -> str:
    return jsonio.dumps(frames.error(channel.table_id, channel.seq, code, message))
