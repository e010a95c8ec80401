"""Crash recovery and take-over: a running table is rebuilt from its durable log and resumed.

Games are deterministic, so re-applying a table's logged entries to a fresh game of the same
config, seed and line-up (`core.replay.replay_entries`) reproduces its state exactly; the
runner then continues from the next step with the replayed log preloaded, and with the play
time the log recorded (`elapsed_ms`), so a play budget is not restarted. Seat streams are
rebuilt from the replayed events, so a bot that reconnects with its `last_seq` gets exactly the
events it missed. A step whose decisions were not yet committed is simply asked again: its
`your_turn` frames carry the same turn ids, and the SDK answers a turn it already answered
with the same move.

At start-up a process re-arms the start timeouts of open tables (those past their deadline are
aborted). With SQLite (one process per database file, `sqlite_lock.py`) it takes every running
table at once; with PostgreSQL the lease loop (`leases.py`) takes those whose lease lapsed.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

from sqlalchemy import Connection, select

from cogleague.core.replay import replay_entries
from cogleague.server.errors import ApiError
from cogleague.server.leases import claim
from cogleague.server.store import OPEN, RUNNING, log_rows, seat_rows, table_row, tables

if TYPE_CHECKING:
    from cogleague.server.tables import TableService

log = logging.getLogger("cogleague.server")


async def recover(service: TableService) -> list[str]:
    """Re-arm open tables; on SQLite resume every running one. Returns the resumed ids."""
    def read(conn: Connection) -> list[dict]:
        rows = conn.execute(select(tables).where(tables.c.state.in_((OPEN, RUNNING)))
                            ).mappings().all()
        return [dict(r) for r in rows]

    resumed = []
    for row in await service.store.tx(read):
        if row["state"] == OPEN:
            service.room(row)
            service.schedule_timeout(row["id"], row["start_deadline"])
        elif not service.store.is_postgres:
            await service.store.tx(claim, row["id"], service.lease_values(), True)
            if await resume(service, row["id"]):
                resumed.append(row["id"])
    return resumed


async def resume(service: TableService, table_id: str) -> bool:
    """Rebuild a running table this process holds the lease of, and run it. False (and the
    table aborted) when its log cannot be replayed."""
    def read(conn: Connection) -> tuple[dict | None, list[dict], list[dict]]:
        return table_row(conn, table_id), seat_rows(conn, table_id), log_rows(conn, table_id)

    row, seat_list, log_ = await service.store.tx(read)
    if row is None or row["state"] != RUNNING or table_id in service.live \
            or table_id in service.unsettled:  # its abort is retried at each lease round
        return False
    try:
        game = service.game_of(row, seat_list)
        replayed = replay_entries(game, [r["entry"] for r in log_])
    except Exception:
        log.exception("table %s: cannot be rebuilt from its log; aborting it", table_id)
        # ended meanwhile (409), or its abort left to the lease rounds (`settle_unsettled`)
        with contextlib.suppress(ApiError):
            await service.abort(table_id, "unrecoverable after restart")
        return False
    elapsed = next((r["elapsed_ms"] for r in reversed(log_) if r["elapsed_ms"] is not None), 0)
    old = service.rooms.pop(table_id, None)
    if old is not None:  # a room from before the start: its sockets reconnect to the new one
        old.moved()
    if not await service.launch_or_abort(row, seat_list, (game, replayed), elapsed / 1000):
        return False
    log.info("table %s: resumed after %d logged steps (%.1f s played)", table_id, len(log_),
             elapsed / 1000)
    return True
