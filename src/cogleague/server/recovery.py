"""Crash recovery: on start, every table the database says is running is rebuilt and resumed.

Games are deterministic, so re-applying a table's logged entries to a fresh game of the same
config, seed and line-up (`core.replay.replay_entries`) reproduces its state exactly; the
runner then continues from the next step with the replayed log preloaded. Seat streams are
rebuilt from the replayed events, so a bot that reconnects with its `last_seq` gets exactly the
events it missed. A step whose decisions were not yet committed is simply asked again: its
`your_turn` frames carry the same turn ids, and the SDK answers a turn it already answered
with the same move.

Open tables get their start-timeout timers back; those past their deadline are aborted.
"""

from __future__ import annotations

import logging

from sqlalchemy import Connection, select

from cogleague.core.replay import replay_entries
from cogleague.server.store import log_rows, seat_rows, tables
from cogleague.server.tables import OPEN, RUNNING, TableService

log = logging.getLogger("cogleague.server")


async def recover(service: TableService) -> list[str]:
    """Resume running tables and re-arm open ones. Returns the ids of resumed tables."""
    def read(conn: Connection) -> list[dict]:
        rows = conn.execute(select(tables).where(tables.c.state.in_((OPEN, RUNNING)))
                            ).mappings().all()
        return [{"row": dict(r), "seats": seat_rows(conn, r["id"]),
                 "log": log_rows(conn, r["id"]) if r["state"] == RUNNING else []}
                for r in rows]

    resumed = []
    for item in await service.store.tx(read):
        row = item["row"]
        if row["state"] == OPEN:
            service.room(row)
            service.schedule_timeout(row["id"], row["start_deadline"])
            continue
        try:
            game = service.game_of(row, item["seats"])
            replayed = replay_entries(game, [r["entry"] for r in item["log"]])
        except Exception:
            log.exception("table %s: cannot be rebuilt from its log; aborting it", row["id"])
            await service.abort(row["id"], "unrecoverable after restart")
            continue
        service.launch(row, item["seats"], (game, replayed))
        resumed.append(row["id"])
        log.info("table %s: resumed after %d logged steps", row["id"], len(item["log"]))
    return resumed
