"""Keep a registered remote agent online: one ``/ws/agent`` socket, many tables at once.

`run_agent(make_bot, server, key, agent)` connects, says ``ready``, and plays every ``assign``
it gets as its own `SeatSession` (a fresh `Bot` per table, so a bot's state never leaks
between tables) — as many at once as the server assigns, which is at most the agent's cap. A
dropped socket is reconnected with growing pauses while the tables go on; the new ``ready``
lists the tables still being played, so the server hands out only the others (with new seat
tokens). Stop it with `stop` (an `asyncio.Event`) or after `max_tables` tables (ended or
failed). A bot class that declares its game (`Bot.game`) is never made online for an agent of
other games: each turn there would raise and wait out its deadline (`AgentRunner.fit`). The
server tells the agent its values (`hello`, then ``changed`` when its owner changes them):
`AgentRun.settings` holds them, and a change of games the bot cannot play — or a retirement —
takes the agent offline at once; so does a newer connection of the same agent (a second
`cogleague agent run`), which the server plays from then on (an ``error`` frame, ``replaced``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from cogleague.client.bot import Bot
from cogleague.client.connection import SeatOutcome, SeatSession, ws_url

log = logging.getLogger("cogleague.agent")
"""Connection trouble at WARNING, "online" and each ended table at INFO (`cogleague agent
run` shows both)."""

OPEN_TIMEOUT_S = 10.0
MAX_PAUSE_S = 1.0
"""Reconnection pauses double from 0.05 s up to this."""
SAY_AGAIN_S = 60.0
"""While no server answers, the "cannot connect" line is repeated this often."""


PHASE_SAYS = {
    "final": ("the season's rated tables are played: only the agents of its final line-ups "
              "are matched now, until the season ends"),
    "ended": ("the season has ended: no more tables are formed (its standings are frozen); "
              "stop this run with Ctrl-C"),
}
"""What `agent run` says when the server tells it its season's phase (``hello``'s, then
``changed``'s ``phase``); nothing for ``running``, the phase it plays in."""


class AgentRefused(RuntimeError):
    """The server refused the agent's socket (wrong key, unknown or retired agent)."""


def describe(exc: BaseException) -> str:
    """Why a connection attempt failed, in words ("connection refused", not errno 111)."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ConnectionClosed) and exc.rcvd is not None \
            and exc.rcvd.code in (1001, 1012):  # going away, service restart (uvicorn's)
        return "the server is restarting or shutting down"
    if isinstance(exc, TimeoutError):
        return f"no answer within {OPEN_TIMEOUT_S:g} s"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def refusal(body: bytes | bytearray | None) -> str:
    """The reason in a refused upgrade's body: the API's ``error.message``, else the text."""
    text = bytes(body or b"").decode("utf-8", "replace").strip()
    try:
        return str(json.loads(text)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return text[:200] or "no reason given"


def check_url(server: str) -> str:
    """`server` if it is an http(s):// or ws(s):// URL, else ValueError: a URL the socket
    cannot use would otherwise be retried, failing the same way, until the runner gives up."""
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        raise ValueError(f"must be an http:// or https:// URL (got {server!r})")
    return server


@dataclass
class AgentRun:
    """What the agent did while it ran."""

    hello: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    """The agent's values now (`agent`, `version`, `cap`, `games`, `state`, `reason`): the
    last ``hello``'s, then each ``changed`` frame's (`cogleague agent set`, pause, resume)."""
    finished: list[SeatOutcome] = field(default_factory=list)
    assigned: list[str] = field(default_factory=list)
    connects: int = 0
    failures: list[str] = field(default_factory=list)


class AgentRunner:
    def __init__(self, make_bot: Callable[[], Bot], server: str, key: str, agent: str, *,
                 max_tables: int | None = None, stop: asyncio.Event | None = None,
                 reconnect_for_s: float = 3600.0, servers: Sequence[str] = ()) -> None:
        self.make_bot = make_bot
        for url in (server, *servers):
            check_url(url)
        self.server = server.rstrip("/")
        self.servers = [self.server, *[s.rstrip("/") for s in servers
                                       if s.rstrip("/") != self.server]]
        self.key = key
        self.agent = agent
        self.max_tables = max_tables
        self.stop = stop or asyncio.Event()
        self.reconnect_for_s = reconnect_for_s
        self.run_state = AgentRun()
        self.tables: dict[str, asyncio.Task[None]] = {}
        self.ws: ClientConnection | None = None
        self.greeted = False  # the current socket's server said hello
        self.unfit: str | None = None
        """Why the runner must go offline — the bot cannot play what the agent is matched
        for (`fit`), the agent was retired or another connection replaced this one: it lets
        its tables finish and raises `AgentRefused` with it."""

    def url(self) -> str:
        return f"{ws_url(self.server)}/ws/agent?{urlencode({'agent': self.agent})}"

    async def run(self) -> AgentRun:
        pause = 0.05
        down_since: float | None = None
        said_at: float | None = None  # when the last "cannot connect" line was logged
        stopper = asyncio.create_task(self.stop.wait())
        try:
            while not self.stop.is_set() and self.unfit is None:
                self.greeted = False
                try:
                    async with connect(self.url(), proxy=None, open_timeout=OPEN_TIMEOUT_S,
                                       additional_headers={"Authorization":
                                                           f"Bearer {self.key}"}) as ws:
                        self.ws = ws
                        self.run_state.connects += 1
                        await self._serve(ws, stopper)
                    error = "the server closed the connection"
                except InvalidStatus as exc:
                    if exc.response.status_code not in (502, 503, 504):
                        raise AgentRefused(f"the server refused agent {self.agent}: "
                                           f"{refusal(exc.response.body)} (HTTP "
                                           f"{exc.response.status_code})") from None
                    error = f"HTTP {exc.response.status_code}"
                except (ConnectionClosed, TimeoutError, OSError, WebSocketException) as exc:
                    error = describe(exc)
                finally:
                    self.ws = None
                if self.stop.is_set() or self.unfit is not None:
                    break
                lost = self.greeted  # a socket closed before any hello is no server either
                if lost:
                    down_since, said_at, pause = None, None, 0.05
                t = time.monotonic()
                down_since = down_since or t
                if t - down_since > self.reconnect_for_s:
                    raise ConnectionError(
                        f"agent {self.agent}: gave up after {self.reconnect_for_s:g} s: cannot "
                        f"connect to {', '.join(self.servers)} (last error: {error})")
                if said_at is None or t - said_at >= SAY_AGAIN_S:
                    said_at = t
                    self._say_down(lost, error, self.reconnect_for_s - (t - down_since))
                self.server = self.servers[(self.servers.index(self.server) + 1)
                                           % len(self.servers)]
                await asyncio.sleep(pause)
                pause = min(pause * 2, MAX_PAUSE_S)
            if self.unfit is not None:  # offline now: the tables in play finish first
                playing: set[asyncio.Future[Any]] = {stopper, *self.tables.values()}
                while self.tables and not self.stop.is_set():
                    await asyncio.wait(playing, return_when=asyncio.FIRST_COMPLETED)
                    playing = {stopper, *self.tables.values()}
                raise AgentRefused(self.unfit)
        finally:
            stopper.cancel()
            for task in list(self.tables.values()):
                task.cancel()
            await asyncio.gather(*self.tables.values(), return_exceptions=True)
        return self.run_state

    def _say_down(self, lost: bool, error: str, left_s: float) -> None:
        """One line while no server answers (again every `SAY_AGAIN_S`): where, why, and
        when the runner gives up."""
        give_up = datetime.now(UTC) + timedelta(seconds=max(left_s, 0.0))
        others = [s for s in self.servers if s != self.server]
        log.warning("agent %s: %s %s (%s); retrying every %g s%s, giving up at %s UTC",
                    self.agent, "lost the connection to" if lost else "cannot connect to",
                    self.server, error, MAX_PAUSE_S,
                    f" (also {', '.join(others)})" if others else "",
                    give_up.strftime("%Y-%m-%d %H:%M:%S"))

    async def _serve(self, ws: ClientConnection, stopper: asyncio.Task[Any]) -> None:
        reader = asyncio.create_task(self._read(ws))
        try:
            await asyncio.wait({reader, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            # Collected even when this task is cancelled: a reader left behind would go on
            # reading a socket nobody serves and die with an exception nobody retrieves.
            if not reader.done():
                reader.cancel()
            await asyncio.wait({reader})
        if reader.cancelled():
            with contextlib.suppress(Exception):
                await ws.close()
            return
        exc = reader.exception()
        if exc is not None:
            raise exc

    async def _read(self, ws: ClientConnection) -> None:
        async for raw in ws:
            frame = self._frame(raw)
            kind = frame.get("type")
            if kind == "hello":
                self.run_state.hello = frame
                self.greeted = True
                if not self._settings(frame, {}):
                    return  # never ready: not matched for tables it cannot play
                log.info("agent %s: online at %s", self.agent, self.server)
                await ws.send(json.dumps({"type": "ready", "playing": sorted(self.tables)}))
            elif kind == "changed":  # `cogleague agent set`, pause, resume, retire
                if not self._settings(frame, self.run_state.settings):
                    return  # offline now: not matched for what it cannot play
            elif kind == "assign":
                unfit = self.fit([frame.get("game")])  # the games changed since the hello
                if unfit is not None:
                    self.unfit = unfit
                    self.run_state.failures.append(f"{frame.get('table')}: {unfit}")
                    log.error("%s", unfit)
                    with contextlib.suppress(Exception):
                        await ws.send(json.dumps({"type": "done", "table": frame.get("table")}))
                    return
                self._assign(frame)
            elif kind == "ping":
                await ws.send('{"type":"pong"}')
            elif kind == "error" and frame.get("code") == "replaced":
                # another connection of this agent plays it now: reconnecting would take
                # its seats back, and the two would take turns replacing each other
                self.unfit = str(frame.get("message") or f"agent {self.agent} is now played "
                                 "by another connection")
                log.error("%s", self.unfit)
                return
            elif kind == "error":
                log.warning("agent %s: %s: %s", self.agent, frame.get("code"),
                            frame.get("message"))

    def _settings(self, frame: dict[str, Any], before: dict[str, Any]) -> bool:
        """Take the agent's values from a ``hello`` or ``changed`` frame and say what
        changed; False (with `unfit` set: the runner goes offline, lets its tables finish and
        raises `AgentRefused`) when the bot cannot play its games, or the agent is retired."""
        now = {k: v for k, v in frame.items() if k != "type"}
        self.run_state.settings = now
        games = now.get("games")
        if games != before.get("games"):
            self.unfit = self.fit(games if isinstance(games, list) else [])
        if now.get("state") == "retired":
            self.unfit = (f"agent {self.agent} was retired; it is no longer matched "
                          "(register another agent to play on)")
        if self.unfit is not None:
            log.error("%s", self.unfit)
            return False
        if before and now.get("cap") != before.get("cap"):
            log.info("agent %s: cap %s (tables at once) from the next table", self.agent,
                     now.get("cap"))
        if before and games != before.get("games"):
            log.info("agent %s: plays %s from the next table", self.agent,
                     ", ".join(map(str, games)) if isinstance(games, list) else games)
        if now.get("state") == "paused" and before.get("state") != "paused":
            log.warning("agent %s is paused (%s): it is not matched until resumed "
                        "(cogleague agent resume %s)", self.agent,
                        now.get("reason") or "paused", self.agent)
        elif now.get("state") == "active" and before.get("state") == "paused":
            log.info("agent %s is resumed: it is matched again", self.agent)
        phase = now.get("phase")
        if phase != before.get("phase") and phase in PHASE_SAYS:
            log.warning("agent %s: %s", self.agent, PHASE_SAYS[phase])
        return True

    def fit(self, games: Sequence[Any]) -> str | None:
        """Why the bot cannot play tables of `games` (it declares another `Bot.game`), or
        None: each turn of such a table would raise and wait out its deadline."""
        written_for = getattr(self.make_bot, "game", None)
        if written_for is None or all(g == written_for for g in games):
            return None
        bot = getattr(self.make_bot, "__name__", type(self.make_bot).__name__)
        return (f"agent {self.agent} plays {', '.join(map(str, games))}; bot {bot} was "
                f"written for {written_for} only: give the agent that game alone (cogleague "
                f"agent set {self.agent} --games {written_for}) or run a bot that plays each "
                "of its games (Bot.game None)")

    def _frame(self, raw: str | bytes) -> dict[str, Any]:
        """The frame as a JSON object; one it cannot read is logged and read as ``{}``
        (skipped): a bad frame from the server or a proxy never stops the agent's tables."""
        try:
            frame = json.loads(raw)
        except (ValueError, RecursionError):
            frame = None
        if isinstance(frame, dict):
            return frame
        log.warning("agent %s: skipped a frame that is not a JSON object: %.200r", self.agent,
                    raw)
        return {}

    def _assign(self, frame: dict[str, Any]) -> None:
        table, seat, token = frame.get("table"), frame.get("seat"), frame.get("token")
        if not (isinstance(table, str | int) and type(seat) is int and isinstance(token, str)):
            log.warning("agent %s: skipped an assign frame without a table, a seat number and "
                        "a token: %.200s", self.agent, json.dumps(frame, ensure_ascii=False))
            return
        table = str(table)
        old = self.tables.get(table)
        if old is not None and not old.done():
            old.cancel()  # a fresh token for a table already being played: play on it
        self.run_state.assigned.append(table)
        self.tables[table] = asyncio.create_task(self._play(table, seat, token, self.server))

    async def _play(self, table: str, seat: int, token: str, server: str) -> None:
        try:
            # the bot is made here: a bot that cannot be made fails its table, not the agent
            session = SeatSession(self.make_bot(), server, table, seat, token,
                                  servers=self.servers)
            outcome = await session.run(reconnect_for_s=self.reconnect_for_s)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # one table's failure never stops the agent
            self.run_state.failures.append(f"{table}: {exc}")
            log.warning("agent %s: table %s: %s", self.agent, table, exc)
        else:
            self.run_state.finished.append(outcome)
            raised = sum(outcome.faults.counts.values())
            log.info("agent %s: table %s (%s, seat %s) ended (%s)%s; results: %s/tables/%s/"
                     "results", self.agent, table, outcome.game or "?", seat,
                     outcome.reason or "no reason given",
                     f"; the bot raised {raised} time(s)" if raised else "", server, table)
        finally:
            if self.tables.get(table) is asyncio.current_task():
                del self.tables[table]
        ws = self.ws
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.send(json.dumps({"type": "done", "table": table}))
        played = len(self.run_state.finished) + len(self.run_state.failures)
        if self.max_tables is not None and played >= self.max_tables:
            self.stop.set()  # a table that failed counts: it was played as far as it could


async def run_agent(make_bot: Callable[[], Bot], server: str, key: str, agent: str, *,
                    max_tables: int | None = None, stop: asyncio.Event | None = None,
                    reconnect_for_s: float = 3600.0, servers: Sequence[str] = ()) -> AgentRun:
    """Keep `agent` online and play what it is assigned until `stop` or `max_tables`.
    `servers`: the deployment's other processes, to reconnect to when one goes away."""
    return await AgentRunner(make_bot, server, key, agent, max_tables=max_tables, stop=stop,
                             reconnect_for_s=reconnect_for_s, servers=servers).run()
