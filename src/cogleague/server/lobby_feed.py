"""`WS /ws/lobby`: the Lobby's table list, pushed as tables change on any process.

A Lobby socket gets ``{"type": "tables", "tables": […]}`` (what `GET /tables` lists) once, then
``{"type": "table", "table": {…}}`` — the table's public document, as `GET /tables/{id}` — each
time a table is created, a seat is taken or given back, or a table starts, ends or is aborted.
The server pings every `ping_interval_s`; anything the client sends is ignored.

How a change reaches every process: the transaction that makes it also sends a PostgreSQL
notice (``lobby:<id>`` for creates, joins and leaves; the ``state:<id>`` a start, end or abort
already sends), delivered once the change is committed — the same `LISTEN/NOTIFY` machinery as
spectator streams (notify.py), so there is no service to run beside the database. Each process
that has Lobby sockets reads the changed tables back (one query for all the changes of one loop
tick) and pushes them. SQLite has one process: `TableService` tells the feed directly after the
commit. A process with no Lobby socket reads nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, WebSocket
from sqlalchemy import Connection, select
from starlette.websockets import WebSocketDisconnect

from cogleague.core import jsonio
from cogleague.server.store import seats, tables

if TYPE_CHECKING:
    from cogleague.server.play import SocketConn
    from cogleague.server.tables import TableService

log = logging.getLogger("cogleague.server")
router = APIRouter()

MAX_LOBBY_SOCKETS = 1000
"""Lobby sockets one process serves at once; more are closed with 1013 (try again later)."""


def _read_tables(conn: Connection, ids: list[str]
                 ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The rows and seat rows of `ids` (those that exist), in two queries."""
    rows = [dict(r) for r in conn.execute(select(tables).where(tables.c.id.in_(ids)))
            .mappings().all()]
    by_table: dict[str, list[dict[str, Any]]] = {r["id"]: [] for r in rows}
    for s in conn.execute(select(seats).where(seats.c.table_id.in_(ids))
                          .order_by(seats.c.table_id, seats.c.seat)).mappings().all():
        by_table[s["table_id"]].append(dict(s))
    return [(r, by_table[r["id"]]) for r in rows]


class LobbyFeed:
    """The Lobby sockets of this process and the changes not pushed to them yet."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self.conns: list[SocketConn] = []
        self.joining: dict[SocketConn, set[str]] = {}
        """Sockets whose first list is being read: the changes meanwhile are pushed after it."""
        self.pending: set[str] = set()
        self._task: asyncio.Task[None] | None = None

    @property
    def listening(self) -> bool:
        return bool(self.conns or self.joining)

    def changed(self, table_ids: Iterable[str]) -> None:
        """These tables changed (committed): push their documents to every Lobby socket."""
        if not self.listening:
            return
        ids = set(table_ids)
        for seen in self.joining.values():
            seen.update(ids)
        if not self.conns:
            return
        self.pending.update(ids)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._push())

    async def _push(self) -> None:
        await asyncio.sleep(0)  # let the changes of this loop tick gather into one read
        while self.pending and self.conns:
            ids, self.pending = sorted(self.pending), set()
            try:
                found = await self.service.store.tx(_read_tables, ids)
            except Exception:
                log.exception("lobby: could not read %d changed table(s)", len(ids))
                return
            texts = [jsonio.dumps({"type": "table", "table": self.service.describe(r, s)})
                     for r, s in found]
            for conn in list(self.conns):
                for text in texts:
                    conn.send_text(text)

    async def attach(self, conn: SocketConn) -> None:
        """Send the whole list, then every change from the moment the read began."""
        self.joining[conn] = set()
        try:
            listed = await self.service.list(None)
        except BaseException:
            self.joining.pop(conn, None)
            raise
        conn.send_text(jsonio.dumps({"type": "tables", "tables": listed}))
        missed = self.joining.pop(conn, set())
        self.conns.append(conn)
        if missed:
            self.changed(missed)

    def detach(self, conn: SocketConn) -> None:
        self.joining.pop(conn, None)
        if conn in self.conns:
            self.conns.remove(conn)


@router.websocket("/ws/lobby")
async def lobby_socket(ws: WebSocket) -> None:
    from cogleague.server.play import SocketConn

    svc: TableService = ws.app.state.tables
    feed = svc.lobby
    await ws.accept()
    conn = SocketConn(ws, ws.app.state.settings.outbox_max_bytes)
    if len(feed.conns) + len(feed.joining) >= MAX_LOBBY_SOCKETS:
        conn.close(1013, "too many lobby connections; try again later")
        await conn.finish()
        return
    interval = ws.app.state.settings.ping_interval_s
    pinger: asyncio.Task[None] | None = None
    try:
        await feed.attach(conn)
        pinger = asyncio.create_task(_ping(conn, interval))
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
    except (WebSocketDisconnect, RuntimeError):
        return
    finally:
        if pinger is not None:
            pinger.cancel()
        feed.detach(conn)
        conn.closed = True
        conn.writer.cancel()


async def _ping(conn: SocketConn, interval: float) -> None:
    text = jsonio.dumps({"type": "ping"})
    while not conn.closed:
        await asyncio.sleep(interval)
        conn.send_text(text)

