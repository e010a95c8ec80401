"""Play one seat over WebSocket with a `Bot`: hello, snapshot, ping, reconnect and resume.

`play_seat(bot, server, table, seat, token)` connects to ``/ws/play``, answers every
`your_turn` with `bot.on_turn`, hands events to `bot.on_event`, answers pings, and returns the
`end` frame's results. If the connection drops (network, server restart) it reconnects with
growing pauses and resumes from the last event it saw (``last_seq``); a turn it already answered
is answered again with the same move, so a resent `your_turn` never produces a different action.

Several server processes on one database (docs/deploy.md): a process that does not run the
table answers the upgrade with HTTP 307 to the one that does, and the `websockets` library
follows it; a socket closed with 4002 (the table moved) or refused with 503 (it is being
taken over) is simply reconnected. Point the SDK at the reverse proxy, or give it every
process (`servers`): reconnects go round them, so the seat survives the death of the process
it was playing on.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from cogleague.client.bot import Bot, TurnInfo
from cogleague.client.botfaults import FaultLog

log = logging.getLogger("cogleague.bot")
"""Refused moves are logged here at WARNING by default (`cogleague bot run` shows them)."""

REPLACED_CLOSE_CODE = 4001
POLICY_CLOSE_CODE = 1008
"""A socket the server closed on purpose: its seat was taken back with a new token (then the
reconnect is refused, and the refusal repeats this reason) or it fell behind reading."""
RETRY_STATUSES = frozenset({502, 503, 504})
"""Upgrade refusals that mean "try again" (a table moving between processes, a proxy whose
upstream is restarting); any other status refuses the seat."""
CORRECTABLE = frozenset({"illegal_action", "message_too_long", "promises_off"})
MAX_FRAME_BYTES = 4 * 1024 * 1024


class SeatRefused(RuntimeError):
    """The server refused this seat (wrong token, unknown table) or another socket replaced it."""


@dataclass
class SeatOutcome:
    """What the `end` frame said, plus what this connection saw."""

    reason: str | None
    results: dict[str, Any] | None
    seat: int | None = None
    alias: str | None = None
    game: str | None = None
    reconnects: int = 0
    turns: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    faults: FaultLog = field(default_factory=FaultLog)
    """Exceptions the bot raised (each reported once); its turns fell back by the rules."""


def _says(body: bytes | bytearray | None) -> str:
    """``: <message>`` of a refused upgrade's error document, or nothing when it has none."""
    try:
        message = json.loads(body or b"")["error"]["message"]
    except (ValueError, TypeError, KeyError):
        return ""
    return f": {message}" if isinstance(message, str) else ""


def ws_url(server: str) -> str:
    """``http(s)://host:port`` → ``ws(s)://host:port``."""
    server = server.rstrip("/")
    if server.startswith("https://"):
        return "wss://" + server[len("https://"):]
    if server.startswith("http://"):
        return "ws://" + server[len("http://"):]
    return server


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class SeatSession:
    """The state that outlives one socket: the seq reached and every move sent."""

    def __init__(self, bot: Bot, server: str, table: str, seat: int, token: str,
                 on_frame: Callable[[dict[str, Any]], Any] | None = None,
                 servers: Sequence[str] = ()) -> None:
        self.bot = bot
        self.server = server
        self.servers = [server, *[s for s in servers if s != server]]
        self.table = table
        self.seat = seat
        self.token = token
        self.on_frame = on_frame
        self.last_seq = 0
        self.moves: dict[str, dict[str, Any]] = {}
        self.turns: dict[str, TurnInfo] = {}
        self.outcome = SeatOutcome(None, None, seat=seat)
        self.greeted = False  # the current socket's server said hello

    def url(self) -> str:
        query = urlencode({"table": self.table, "seat": self.seat, "token": self.token,
                           "last_seq": self.last_seq})
        return f"{ws_url(self.server)}/ws/play?{query}"

    async def run(self, reconnect_for_s: float = 60.0) -> SeatOutcome:
        pause = 0.05
        down_since: float | None = None
        closed_for = ""
        while True:
            self.greeted = False
            try:
                async with connect(self.url(), max_size=MAX_FRAME_BYTES, proxy=None,
                                   open_timeout=10, compression=None) as ws:
                    ended = await self._serve(ws)
                    if ended:
                        return self.outcome
            except InvalidStatus as exc:
                if exc.response.status_code in RETRY_STATUSES:
                    pass
                else:
                    why = f"; it had closed the last socket: {closed_for}" if closed_for else ""
                    raise SeatRefused(f"the server refused seat {self.seat} at table {self.table} "
                                      f"(HTTP {exc.response.status_code}"
                                      f"{_says(exc.response.body)}){why}") from None
            except ConnectionClosed as exc:
                if exc.rcvd is not None and exc.rcvd.code == REPLACED_CLOSE_CODE:
                    raise SeatRefused("another connection took over this seat") from None
                if exc.rcvd is not None and exc.rcvd.code == POLICY_CLOSE_CODE:
                    closed_for = exc.rcvd.reason  # a lagging socket reconnects; a seat taken
                                                  # back is refused next, and this says why
            except (TimeoutError, OSError, WebSocketException):
                pass
            if self.greeted:  # a socket closed before the table's hello is no server either
                down_since, pause = None, 0.05
            now = time.monotonic()
            down_since = down_since or now
            if now - down_since > reconnect_for_s:
                raise ConnectionError(f"could not reach {', '.join(self.servers)} for "
                                      f"{reconnect_for_s:g} s")
            self.outcome.reconnects += 1
            self.server = self.servers[self.outcome.reconnects % len(self.servers)]
            await asyncio.sleep(pause)
            pause = min(pause * 2, 1.0)

    async def _serve(self, ws: ClientConnection) -> bool:
        """Handle frames until `end` (True) or the socket closes (ConnectionClosed)."""
        async for raw in ws:
            frame = json.loads(raw)
            if self.on_frame is not None:
                self.on_frame(frame)
            kind = frame.get("type")
            if kind == "event":
                self.last_seq = max(self.last_seq, int(frame["seq"]))
                try:
                    await _maybe_await(self.bot.on_event(frame["event"], frame["payload"]))
                except Exception as exc:  # the bot's own bug: reported, the seat stays
                    self.outcome.faults.record("on_event", exc, self._where())
            elif kind == "your_turn":
                await self._turn(ws, frame)
            elif kind == "snapshot":
                if frame.get("your_turn"):
                    await self._turn(ws, frame["your_turn"])
            elif kind == "hello":
                self.greeted = True
                self.outcome.alias = frame.get("alias")
                self.outcome.game = frame.get("game")
            elif kind == "ping":
                await ws.send('{"type":"pong"}')
            elif kind == "error":
                self.outcome.errors.append(frame)
                await self._correct(ws, frame)
            elif kind == "end":
                self.outcome.reason = frame.get("reason")
                self.outcome.results = frame.get("results")
                return True
        return False

    async def _turn(self, ws: ClientConnection, frame: dict[str, Any]) -> None:
        turn_id = frame["turn_id"]
        move = self.moves.get(turn_id)
        if move is None:
            info = TurnInfo(turn_id=turn_id, game=self.outcome.game or "", seat=self.seat,
                            legal_actions=frame.get("legal_actions"),
                            visible_state=frame.get("visible_state") or {},
                            prompt_text=frame.get("prompt_text"),
                            deadline_ms=frame.get("deadline_ms"), hint=frame.get("hint"),
                            extra={"deadline_at": frame.get("deadline_at")})
            try:
                action = await _maybe_await(self.bot.on_turn(info))
            except Exception as exc:  # unanswered: the turn falls back at its deadline
                self.outcome.faults.record("on_turn", exc, self._where())
                return
            if action is None:
                return  # the bot passes: the turn runs out and gets the game's timeout action
            move = {"type": "move", "turn_id": turn_id, **dict(action)}
            self.moves[turn_id] = move
            self.turns[turn_id] = info
            self.outcome.turns += 1
        await ws.send(json.dumps(move, ensure_ascii=False))

    def _where(self) -> str:
        return f"table {self.table} seat {self.seat}"

    async def _correct(self, ws: ClientConnection, frame: dict[str, Any]) -> None:
        """A refused move is logged at once (code, message, what was legal); before the
        deadline the bot may correct it (`Bot.on_error`)."""
        turn_id = frame.get("turn_id")
        if frame.get("code") == "wrong_shape":  # accepted, but read as the rules' default
            log.warning("table %s seat %s: move for turn %s read as the rules' default: %s",
                        self.table, self.seat, turn_id, frame.get("message"))
            return
        log.warning("table %s seat %s: move for turn %s refused: %s: %s (legal: %s)",
                    self.table, self.seat, turn_id, frame.get("code"), frame.get("message"),
                    json.dumps(frame.get("legal_actions"), ensure_ascii=False)
                    if "legal_actions" in frame else "—")
        if frame.get("code") not in CORRECTABLE or turn_id not in self.turns:
            return
        try:
            action = await _maybe_await(self.bot.on_error(frame["code"], frame.get("message", ""),
                                                          self.turns[turn_id]))
        except Exception as exc:
            self.outcome.faults.record("on_error", exc, self._where())
            return
        if action is None:
            return
        move = {"type": "move", "turn_id": turn_id, **dict(action)}
        self.moves[turn_id] = move
        await ws.send(json.dumps(move, ensure_ascii=False))


async def play_seat(bot: Bot, server: str, table: str, seat: int, token: str, *,
                    reconnect_for_s: float = 60.0,
                    on_frame: Callable[[dict[str, Any]], Any] | None = None,
                    servers: Sequence[str] = ()) -> SeatOutcome:
    """Play `seat` of `table` until the table ends; returns the `end` frame's content.
    `servers`: further processes of the same deployment to reconnect to."""
    return await SeatSession(bot, server, table, seat, token, on_frame, servers
                             ).run(reconnect_for_s)


async def join_and_play(bot: Bot, server: str, key: str, table: str, *, seat: int | None = None,
                        name: str | None = None, start: bool = False,
                        reconnect_for_s: float = 60.0, reclaim: bool = False) -> SeatOutcome:
    """Take a remote seat with an API key, connect, optionally start the table, and play.

    `reclaim`: when the account already holds a seat at the table (a bot that restarted and
    lost its token), take that seat back with a fresh token (`LobbyClient.reclaim`; the old
    token stops working), before or after the start; else join as usual. `start` is skipped
    for a table already running."""
    from cogleague.client.lobby import LobbyClient, LobbyError
    from cogleague.seats.botref import check_bot_game

    async with LobbyClient(server, key) as lobby:
        fields: dict[str, Any] = {}
        if seat is not None:
            fields["seat"] = seat
        if name is not None:
            fields["name"] = name
        info = await lobby.table(table)
        check_bot_game(bot, str(info["game"]), type(bot).__name__,
                       field="bot")  # refused before it takes a seat
        granted: Mapping[str, Any] | None = None
        if reclaim:
            try:
                granted = await lobby.reclaim(table)
                log.warning("table %s: took back seat %s (%s) with a new token", table,
                            granted["seat"], granted["alias"])
            except LobbyError as exc:
                if exc.code != "not_found":  # not_found: no seat held here, so join
                    raise
        if granted is None:
            granted = await lobby.join(table, "remote", **fields)
        session = SeatSession(bot, server, table, int(granted["seat"]), str(granted["token"]))
        task = asyncio.create_task(session.run(reconnect_for_s))
        if start and info.get("state") == "open":
            await asyncio.sleep(0.2)  # let the socket connect before the first turn is sent
            await lobby.start(table)
        return await task
