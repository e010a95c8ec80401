"""Spectators of a table another process runs: its public stream, rebuilt from the database.

A process that does not run a table serves `/ws/watch` from a `Mirror`: the table's game,
replayed from the durable log as rows arrive (PostgreSQL `NOTIFY log:<id>` after each commit,
`notify.py`), pushing each event's public view into a `WatchChannel` exactly as the owner's
broadcast does, so a spectator sees the same frames whichever process it reached, and keeps
seeing them when the owner dies and another process takes over. No service besides the
database is involved.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from cogleague.core.replay import replay_entries
from cogleague.server.live import Room
from cogleague.server.store import loads, log_rows, seat_rows, table_row

log = logging.getLogger("cogleague.server")


class Mirror:
    def __init__(self, service: Any, row: dict[str, Any], seat_list: list[dict[str, Any]]
                 ) -> None:
        info = loads(row["info"])
        self.service = service
        self.id = row["id"]
        self.room = Room(row["id"], row["game"], service.catalog.get(row["game"]).version,
                         info["aliases"], info["public_config"], "running",
                         exhibition=bool(info.get("exhibition")),
                         secrets=service.catalog.get(row["game"]).spectator_secrets)
        self.game = service.game_of(row, seat_list)
        self.room.game = self.game
        self.next_idx = 0
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self.ended = False

    async def refresh(self) -> None:
        """Apply the log rows committed since the last refresh; end when the table did."""
        def read(conn: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
            return log_rows(conn, self.id, self.next_idx - 1), table_row(conn, self.id)

        rows, row = await self.service.store.tx(read)
        for r in rows:
            if r["idx"] != self.next_idx:
                break
            replayed = replay_entries(self.game, [r["entry"]])
            for event in replayed.events:
                view = event.view_for(None)
                if view is not None:
                    self.room.watch.push_event(view)
            self.next_idx += 1
        if row is not None and row["state"] in ("finished", "aborted") and not self.ended:
            self.ended = True  # the owner commits every log row before the end
            self.room.end(row["reason"], loads(row["results"]))
            self.service.mirrors.pop(self.id, None)

    def poke(self) -> None:
        """New rows (or an end) were committed: refresh, coalescing bursts of notices."""
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = asyncio.create_task(self._loop())

    async def _loop(self) -> None:
        while True:
            self._again = False
            try:
                await self.refresh()
            except Exception:
                log.exception("table %s: mirror refresh failed", self.id)
            if not self._again or self.ended:
                return


async def mirror_for(service: Any, table_id: str) -> Mirror:
    """The process's mirror of a running table (made and caught up on first use)."""
    found: Mirror | None = service.mirrors.get(table_id)
    if found is not None:
        return found

    def read(conn: Any) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        return table_row(conn, table_id), seat_rows(conn, table_id)

    row, seat_list = await service.store.tx(read)
    assert row is not None
    made: Mirror | None = service.mirrors.get(table_id)
    if made is not None:
        return made
    made = Mirror(service, row, seat_list)
    service.mirrors[table_id] = made
    await made.refresh()
    return made
