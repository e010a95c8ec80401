"""Every finished table reaches the league standings exactly once, even across a crash.

A table's end is committed first and recorded in the league store right after
(`payouts.record_league`, on the database thread, retried until stored). A process killed
between the two would leave a finished table out of the standings; `backfill` finds finished
tables without their league episode and records them — at start-up, and every few seconds
while a season runs (`season_runtime.py`: the process that died may never come back).
Recording is idempotent by table id, so a table recorded twice still counts once.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import Connection, inspect, select

from cogleague.server.payouts import record_league, records_league
from cogleague.server.store import loads, seat_rows, table_row, tables

log = logging.getLogger("cogleague.server")
CHUNK = 500


def _missing(conn: Connection, finished_before: float | None) -> list[str]:
    """Finished tables whose league episode is not stored (those that finished before
    `finished_before`, when given: a table that ended just now is still being recorded)."""
    from cogleague.league.store import EpisodeRow, episode_id_for_table

    if not inspect(conn).has_table(EpisodeRow.__tablename__):
        done_ids: set[str] = set()
    else:
        done_ids = set(conn.execute(select(EpisodeRow.id).where(
            EpisodeRow.source == "server")).scalars())
    q = select(tables.c.id).where(tables.c.state == "finished", tables.c.results.is_not(None))
    if finished_before is not None:
        q = q.where(tables.c.finished_at < finished_before)
    ids = conn.execute(q).scalars()
    return [t for t in ids if episode_id_for_table(t) not in done_ids]


async def backfill(service: Any, finished_before: float | None = None) -> list[str]:
    """Record the finished tables the league store lacks; returns their ids."""
    if not records_league(service.settings):
        return []
    missing = await service.store.tx(_missing, finished_before)
    for i in range(0, len(missing), CHUNK):
        def read(conn: Connection, ids: list[str] = missing[i:i + CHUNK]
                 ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
            return [(r, seat_rows(conn, t)) for t in ids if (r := table_row(conn, t))]

        for row, seat_list in await service.store.tx(read):
            await record_league(service.store, row, seat_list, loads(row["results"]),
                                row["finished_at"] or row["started_at"] or 0.0)
    if missing:
        log.warning("recorded %d finished table(s) missing from the league standings",
                    len(missing))
    return missing
