"""``WS /ws/agent``: a remote agent's one standing connection (the lichess bot-stream model).

The agent authenticates with its account's API key (``Authorization: Bearer KEY``, or a
``key`` query parameter for clients that cannot set headers) and names itself (``agent``).
The server says ``hello``; the agent says ``ready`` (with the tables it is still playing after
a reconnect, so they are not handed out twice), and from then on gets one ``assign`` frame per
seat — table, seat, game and a fresh seat token for ``/ws/play`` — and answers ``ping`` with
``pong``. While the socket is open the agent is *online* and can be matched; a closed socket
(or a process that stopped renewing its presence) takes it off the matchmaker's list. A change
to what ``hello`` said (``PATCH /agents/NAME``, a pause, a resume, a retirement; on any
process) comes as a ``changed`` frame with the same fields, within a league tick of the
socket being online (`LeagueRuntime._tell`): the agent never plays on with settings it no
longer has.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from fastapi import APIRouter, WebSocket
from sqlalchemy import Connection, select
from starlette.websockets import WebSocketDisconnect

from cogleague.core import jsonio
from cogleague.core.text import text_fault
from cogleague.server.agents import socket_fields
from cogleague.server.auth import bearer, digest
from cogleague.server.frames import excerpt
from cogleague.server.key_watch import KeyWatch
from cogleague.server.league_schema import agents
from cogleague.server.limits import (
    TOO_DEEP_MESSAGE,
    json_too_deep,
    oversized,
    rate_limited_message,
    too_large_message,
)
from cogleague.server.play import RateLimit, SocketConn, _deny
from cogleague.server.season_runtime import NO_SEASON, AgentLink, LeagueRuntime
from cogleague.server.store import accounts

router = APIRouter()


REGISTER = "register one: cogleague agent register NAME, or POST /agents"
MINE_SHOWN = 10
"""How many of the key's remote agents an unknown agent name's refusal lists."""


async def _agent_for(rt: LeagueRuntime, key: str | None, name: str) -> dict[str, Any] | str:
    """The agent's current row, or why the socket is refused."""
    if not key:
        return "send Authorization: Bearer <API key> (or ?key=)"
    if not name:
        return ("agent: required; name the registered agent: /ws/agent?agent=NAME (the key in "
                "Authorization: Bearer KEY, or &key=KEY)")

    def read(conn: Connection) -> tuple[Any, Any, str | None]:
        who = conn.execute(select(accounts.c.id, accounts.c.role).where(
            accounts.c.key_digest == digest(key))).first()
        row = conn.execute(select(agents).where(agents.c.name == name)
                           .order_by(agents.c.version.desc()).limit(1)).mappings().first()
        return who, row, rt.phase_in(conn)

    def theirs(conn: Connection, account_id: int) -> list[str]:
        return list(conn.scalars(select(agents.c.name).distinct().where(
            agents.c.account_id == account_id, agents.c.kind == "remote",
            agents.c.state != "retired").order_by(agents.c.name).limit(MINE_SHOWN + 1)))

    if text_fault(name) is not None:  # no agent's name holds a NUL: PostgreSQL cannot look
        return f"agent {name!r} does not exist ({REGISTER})"
    who, row, phase = await rt.store.tx(read)
    if who is None or who.role == "house":
        return "unknown API key"
    if rt.id is None:
        return NO_SEASON
    if row is None:  # most often a typo: name the key's agents
        mine = await rt.store.tx(theirs, who.id)
        listed = ", ".join(mine[:MINE_SHOWN]) + (", …" if len(mine) > MINE_SHOWN else "")
        return (f"agent {name!r} does not exist (this key's agents: {listed or 'none'}; "
                f"{REGISTER})")
    if row["account_id"] != who.id:
        return f"agent {name!r} belongs to another account"
    if row["kind"] != "remote":
        return f"agent {name!r} is a {row['kind']} agent; only remote agents connect"
    if row["state"] == "retired":
        return f"agent {name!r} is retired"
    return {**row, "phase": phase}


@router.websocket("/ws/agent")
async def agent_socket(ws: WebSocket) -> None:
    rt: LeagueRuntime = ws.app.state.league
    key = bearer(ws.headers.get("authorization")) or ws.query_params.get("key")
    found = await _agent_for(rt, key, ws.query_params.get("agent", ""))
    if isinstance(found, str):
        await _deny(ws, 401, found)
        return
    await ws.accept()
    # an outbox: a peer that stops reading never blocks the league loop
    conn = SocketConn(ws, rt.settings.outbox_max_bytes)
    keys: KeyWatch = ws.app.state.key_watch
    owner = found["account_id"]
    keys.add(owner, digest(key or ""), conn)  # closed when the account gets a new key

    async def send(frame: dict[str, Any]) -> None:
        conn.send_text(jsonio.dumps(frame))

    told = socket_fields(found, found["phase"])
    # `changed` once the row differs from `told`; closed when a newer socket replaces it
    link = AgentLink(found["id"], send, told, close=conn.close)
    settings = rt.settings
    limit = RateLimit(settings.moves_per_second, settings.move_burst)  # /ws/play's rate
    pinger = asyncio.create_task(_ping(send, settings.ping_interval_s, keys))
    attached = False
    try:
        await keys.check(owner)  # a new key made since `_agent_for` read the old one
        await send({"type": "hello", **told})
        while True:
            try:
                message = await ws.receive()
            except (WebSocketDisconnect, RuntimeError):
                return
            if message["type"] == "websocket.disconnect" or conn.closed:
                return  # closed: gone, or too many unread frames (`OUTBOX_LIMIT`)
            if not limit.allow():  # a flood is refused unparsed (an error frame each)
                await send({"type": "error", "code": "rate_limited",
                            "message": rate_limited_message(settings.moves_per_second)})
                continue
            frame = _frame(message.get("text"), settings.max_frame_bytes)
            if isinstance(frame, tuple):
                await send({"type": "error", "code": frame[0], "message": frame[1]})
                continue
            kind = frame["type"]
            fault = _fault(frame, attached)
            if fault is not None:
                await send({"type": "error", "code": "bad_frame", "message": fault})
            elif kind == "ready":
                link.playing = set(frame.get("playing") or [])
                await rt.attach(link)
                attached = True
            elif kind == "done":
                link.playing.discard(frame["table"])
            elif kind == "ping":
                await send({"type": "pong"})
    finally:
        keys.remove(owner, conn)
        pinger.cancel()
        if conn.closed:  # a close is queued (a replaced key, `OUTBOX_LIMIT`): it goes out
            await asyncio.wait({conn.writer}, timeout=2.0)  # first, or the peer sees 1006
        conn.closed = True
        conn.writer.cancel()
        if attached:
            await rt.detach(link)


def _frame(text: str | None, max_bytes: int) -> dict[str, Any] | tuple[str, str]:
    """One incoming frame as a JSON object with a string `type`, or (code, message) saying
    why not: the limits of a `/ws/play` frame (size, nesting), never a traceback."""
    if text is None:
        return "bad_frame", "frames are JSON text, not binary"
    if oversized(text, max_bytes):
        return "too_large", too_large_message(max_bytes)
    if json_too_deep(text):
        return "bad_frame", TOO_DEEP_MESSAGE
    try:
        frame = json.loads(text)
    except (ValueError, RecursionError):
        frame = None
    if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
        return "bad_frame", (f"frames are JSON objects with a type, one of {TYPES} "
                             f"(got {excerpt(repr(text))})")
    return frame


TYPES = "ready, done, ping, pong"
"""What an agent sends (module docstring)."""


def _fault(frame: dict[str, Any], attached: bool) -> str | None:
    """Why a JSON frame with a `type` cannot be used, naming the field and what it accepts
    (None when it can): nothing an agent sends is dropped without a word."""
    kind = frame["type"]
    if kind == "ready":
        playing = frame.get("playing")
        if attached:
            return ("ready: already sent on this socket (it is sent once, after hello; "
                    "reconnect to send it again)")
        bad = next((t for t in playing if not isinstance(t, str)), None) \
            if isinstance(playing, list) else playing
        if playing is not None and (not isinstance(playing, list) or bad is not None):
            return (f"playing: must be a list of table ids, the tables this agent still plays "
                    f"(got {excerpt(repr(bad))})")
    elif kind == "done":
        if not isinstance(frame.get("table"), str):
            got = f" (got {excerpt(repr(frame['table']))})" if "table" in frame else ""
            return f"table: required; must be the table id of a finished assign{got}"
    elif kind not in ("ping", "pong"):
        return f"type must be one of {TYPES} (got {excerpt(repr(kind))})"
    return None


async def _ping(send: Any, interval: float, keys: KeyWatch) -> None:
    """A ping every `interval`; then the process's key re-check, when it is due (a missed
    ``keys:`` notice must not leave an old key's socket open)."""
    with contextlib.suppress(Exception):
        while True:
            await asyncio.sleep(interval)
            await send({"type": "ping"})
            await keys.recheck()
