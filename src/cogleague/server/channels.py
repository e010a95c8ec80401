"""Per-seat and spectator streams: what each audience has been sent, and who is listening now.

A `Stream` keeps every `event` frame its audience was sent (seq = position + 1), so a seat that
reconnects gets exactly what it missed, and after a crash the stream is rebuilt byte for byte
from the replayed log. A `SeatChannel` adds the seat's one outstanding turn: `ask` sends
`your_turn` and waits for a legal `move`; `on_move` answers every move with an `ack` or an
`error` frame (protocol.md §3). Connections only enqueue: a slow socket never blocks the table.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from cogleague.core import jsonio
from cogleague.core.errors import IllegalAction
from cogleague.core.game import Parsed, Turn
from cogleague.server import frames
from cogleague.server.audience import Audience

REPLACED_CLOSE_CODE = 4001
"""Close code of an older socket when the same seat connects again (the newest wins)."""

MOVED_CLOSE_CODE = 4002
"""Close code when another server process runs the table now: reconnect (the same address
redirects the seat there; spectators are served from any process)."""


class Sender(Protocol):
    def send_text(self, text: str) -> None: ...

    def close(self, code: int, reason: str) -> None: ...


def event_text(seq: int, table_json: str, name_json: str, payload_json: str) -> str:
    """An `event` frame from already-encoded parts: byte for byte `jsonio.dumps` of
    ``{"type": "event", "seq", "table", "event", "payload"}`` (compact separators, this key
    order), so one payload encoding serves every seat that sees the same view."""
    return (f'{{"type":"event","seq":{seq},"table":{table_json},"event":{name_json},'
            f'"payload":{payload_json}}}')


class Stream:
    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.table_json = jsonio.dumps(table_id)
        self.event_texts: list[str] = []
        self.end_text: str | None = None

    @property
    def seq(self) -> int:
        return len(self.event_texts)

    def listeners(self) -> list[Sender]:
        raise NotImplementedError

    def push_event(self, view: dict[str, Any]) -> None:
        """Append one event (a `view_for` dict) to the stream and send it to the listeners."""
        payload = dict(view)
        name = payload.pop("kind")
        self.push_encoded(jsonio.dumps(name), jsonio.dumps(payload))

    def push_encoded(self, name_json: str, payload_json: str) -> None:
        """`push_event` with the event name and payload already JSON-encoded."""
        text = event_text(len(self.event_texts) + 1, self.table_json, name_json, payload_json)
        self.event_texts.append(text)
        for conn in self.listeners():
            conn.send_text(text)

    def events_after(self, last_seq: int) -> list[str]:
        return self.event_texts[max(0, last_seq):]

    def frame(self, kind: str, **fields: Any) -> str:
        """A non-event server frame at the stream's current seq."""
        return jsonio.dumps({"type": kind, "seq": self.seq, "table": self.table_id, **fields})

    def send(self, text: str) -> None:
        for conn in self.listeners():
            conn.send_text(text)

    def moved(self) -> None:
        """Close every listener with `MOVED_CLOSE_CODE`: they reconnect and are served by the
        process that runs the table now."""
        for conn in self.listeners():
            conn.close(MOVED_CLOSE_CODE, "the table moved to another server process; reconnect")

    def end(self, reason: str | None, results: dict[str, Any] | None) -> None:
        """Send `end` and close every listener normally; later connections get it too."""
        self.end_text = self.frame("end", reason=reason, results=results)
        for conn in self.listeners():
            conn.send_text(self.end_text)
            conn.close(1000, "table ended")


class WatchChannel(Stream):
    """Spectators: public events only (`Event.view_for(None)`), any number of sockets, each
    event and document through the table's `Audience` (no secret of the game's, no policy
    name unless `exhibition`)."""

    def __init__(self, table_id: str, exhibition: bool = False,
                 secrets: frozenset[str] = frozenset()) -> None:
        super().__init__(table_id)
        self.conns: list[Sender] = []
        self.exhibition = exhibition
        self.audience = Audience(secrets, exhibition)

    def push_encoded(self, name_json: str, payload_json: str) -> None:
        super().push_encoded(name_json, self.audience.payload_json(payload_json))

    def live_view(self, value: Any) -> Any:
        """A live spectator document (a snapshot's state) as this channel may show it."""
        return self.audience.document(value)

    def listeners(self) -> list[Sender]:
        return self.conns

    def attach(self, conn: Sender) -> None:
        self.conns.append(conn)

    def detach(self, conn: Sender) -> None:
        if conn in self.conns:
            self.conns.remove(conn)


@dataclass
class _Pending:
    turn: Turn
    future: asyncio.Future[dict[str, Any]]
    frame: dict[str, Any]


class SeatChannel(Stream):
    """One seat's stream, its current socket (newest wins) and its outstanding turn."""

    def __init__(self, table_id: str, seat: int, alias: str,
                 parse: Callable[[Turn, Any], Parsed]) -> None:
        super().__init__(table_id)
        self.seat = seat
        self.alias = alias
        self.parse = parse
        self.conn: Sender | None = None
        self.pending: _Pending | None = None
        self.answered: dict[str, str] = {}  # turn_id -> its ack frame (moves are idempotent)
        self.expired: set[str] = set()
        self.last_view: dict[str, Any] | None = None
        self.arrived = asyncio.Event()
        """Set when the seat's program first connects (the connect timeout reads it)."""

    def listeners(self) -> list[Sender]:
        return [self.conn] if self.conn is not None else []

    def attach(self, conn: Sender) -> None:
        old, self.conn = self.conn, conn
        self.arrived.set()
        if old is not None and old is not conn:
            old.close(REPLACED_CLOSE_CODE, "replaced by a newer connection for this seat")

    def detach(self, conn: Sender) -> None:
        if self.conn is conn:
            self.conn = None

    # -- turns -------------------------------------------------------------------------------
    async def ask(self, turn: Turn, hint: str | None, timeout_s: float) -> dict[str, Any]:
        """Send `your_turn` and wait for a legal move (the runner bounds the wait)."""
        return await self.ask_future(turn, hint, timeout_s)

    def ask_future(self, turn: Turn, hint: str | None, timeout_s: float
                   ) -> asyncio.Future[dict[str, Any]]:
        """`ask` without a coroutine: send `your_turn` now and return the future the move
        resolves. Cancelling it (the runner's deadline) expires the turn, so a later move
        gets `too_late`. The runner awaits it directly — no task per move."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        turn_id = turn.turn_id
        self.expired.discard(turn_id)
        view = turn.view
        self.last_view = view
        frame: dict[str, Any] = {
            "type": "your_turn", "table": self.table_id, "turn_id": turn_id,
            "deadline_ms": int(timeout_s * 1000),
            "deadline_at": int((time.time() + timeout_s) * 1000),
            "legal_actions": turn.legal_actions, "visible_state": view}
        prompt = turn.prompt_text
        if prompt is not None:
            frame["prompt_text"] = prompt
        if hint is not None:
            frame["hint"] = hint
        self.pending = _Pending(turn, future, frame)
        frame["seq"] = self.seq
        self.send(jsonio.dumps(frame))
        del frame["seq"]  # the snapshot adds the seq current when it is sent

        def settled(done: asyncio.Future[dict[str, Any]]) -> None:
            pending = self.pending
            if pending is not None and pending.future is done:
                self.pending = None
            if done.cancelled():
                self.expired.add(turn_id)

        future.add_done_callback(settled)
        return future

    def pending_turn_frame(self) -> dict[str, Any] | None:
        """The outstanding `your_turn` as a snapshot carries it: `deadline_ms` is the time
        left now (to `deadline_at`), not the whole turn time it was asked with."""
        if self.pending is None:
            return None
        frame = self.pending.frame
        left = max(0, frame["deadline_at"] - int(time.time() * 1000))
        return {**frame, "deadline_ms": min(frame["deadline_ms"], left), "seq": self.seq}

    def on_move(self, turn_id: str, fields: dict[str, Any]) -> str:
        """The reply to one `move`: an `ack` (again, for a turn already answered) or an error."""
        done = self.answered.get(turn_id)
        if done is not None:
            return done
        pending = self.pending
        if pending is not None and pending.turn.turn_id == turn_id:
            try:
                parsed = self.parse(pending.turn, fields)
            except IllegalAction as illegal:  # told at once, with what would be legal
                return self.frame("error", code=illegal.code, message=str(illegal),
                                  turn_id=turn_id, hint=illegal.hint,
                                  legal_actions=pending.turn.legal_actions)
            except Exception as exc:  # a game's parser must not crash the socket
                return self.frame("error", code="illegal_action",
                                  message=f"unusable move ({type(exc).__name__})",
                                  turn_id=turn_id)
            ack = self.frame("ack", turn_id=turn_id)
            self.answered[turn_id] = ack
            self.pending = None
            if not pending.future.done():
                pending.future.set_result(fields)
            if parsed.reason is not None:  # taken as the rules' default: say so, after the ack
                self.send(ack)
                return self.frame("error", code="wrong_shape", message=parsed.reason,
                                  turn_id=turn_id)
            return ack
        if turn_id in self.expired:
            return self.frame("error", code="too_late", turn_id=turn_id,
                              message="the deadline of this turn has passed; the move is ignored")
        if pending is None:
            return self.frame("error", code="not_your_turn", turn_id=turn_id,
                              message="no turn of this seat is waiting for a move")
        return self.frame("error", code="unknown_turn", turn_id=turn_id,
                          message=f"turn_id must be the pending turn {pending.turn.turn_id!r}")

    def error(self, code: str, message: str, turn_id: str | None = None) -> str:
        return jsonio.dumps(frames.error(self.table_id, self.seq, code, message, turn_id))
