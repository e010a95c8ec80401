"""Table leases: each running table is run by exactly one server process at a time.

The lease is three columns of the table's row (`owner`, `owner_url`, `lease_until`). The
process that starts a table takes it in the start transaction; every `lease_renew_s` each
process renews all its leases in one UPDATE, drops the tables it no longer holds, and claims
running tables whose lease lapsed (its owner died or stalled for `lease_ttl_s`), rebuilding
each from its durable log (`recovery.resume`); it also aborts open tables left past their
start deadline by a process that went away (their timer went with it). A claim is one
conditional UPDATE, so two processes racing for a table cannot both win; log appends are
fenced by the owner column (`store._append_rows`), so a stalled former owner cannot write
after a take-over.
Lease times are wall-clock seconds: hosts sharing a database keep their clocks in sync (NTP).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sqlalchemy import Connection, or_, select, update

from cogleague.server.dbretry import Unavailable, throttle
from cogleague.server.errors import ApiError
from cogleague.server.store import OPEN, RUNNING, now, tables

log = logging.getLogger("cogleague.server")


def renew(conn: Connection, node_id: str, ttl_s: float) -> set[str]:
    """Extend every lease this process holds; return the tables it holds."""
    conn.execute(update(tables).where(tables.c.owner == node_id, tables.c.state == RUNNING)
                 .values(lease_until=now() + ttl_s))
    return set(conn.execute(select(tables.c.id).where(
        tables.c.owner == node_id, tables.c.state == RUNNING)).scalars().all())


def lapsed(conn: Connection) -> list[str]:
    """Running tables nobody holds: no owner yet, or a lease past its time."""
    return list(conn.execute(select(tables.c.id).where(
        tables.c.state == RUNNING,
        or_(tables.c.owner.is_(None), tables.c.lease_until < now()))
        .order_by(tables.c.started_at)).scalars().all())


def overdue(conn: Connection, grace_s: float) -> list[str]:
    """Open tables more than `grace_s` past their start deadline: the process that armed their
    start timeout went away (its own timer fires first while it lives)."""
    return list(conn.execute(select(tables.c.id).where(
        tables.c.state == OPEN, tables.c.start_deadline < now() - grace_s)
        .order_by(tables.c.start_deadline)).scalars().all())


def claim(conn: Connection, table_id: str, values: dict[str, Any], force: bool = False) -> bool:
    """Take the lease of `table_id` if it lapsed (or unconditionally: `force`, for the one
    SQLite process at start-up). True if this process holds it now."""
    q = update(tables).where(tables.c.id == table_id, tables.c.state == RUNNING)
    if not force:
        q = q.where(or_(tables.c.owner.is_(None), tables.c.lease_until < now()))
    return conn.execute(q.values(**values)).rowcount == 1


class LeaseKeeper:
    """The per-process loop: renew, let go of lost tables, take over lapsed ones, and time out
    open tables whose own process went away."""

    def __init__(self, service: Any) -> None:
        self.service = service
        self.task: asyncio.Task[None] | None = None
        self.takeovers: list[str] = []

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="cogleague-leases")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def _run(self) -> None:
        every = self.service.settings.lease_renew_s
        while True:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Unavailable:  # the database is away (the store logged it): next tick
                pass
            except Exception as exc:
                throttle.warn(("lease", type(exc).__name__), "lease renewal failed: %s: %s",
                              type(exc).__name__, exc)
            await asyncio.sleep(every)

    async def tick(self) -> list[str]:
        """One round; returns the tables taken over."""
        from cogleague.server.recovery import resume

        svc = self.service
        mine = await svc.store.tx(renew, svc.node_id, svc.settings.lease_ttl_s)
        for table_id in [t for t in svc.live if t not in mine]:
            log.warning("table %s: lease lost; another process runs it now", table_id)
            svc.forget(table_id)
        await svc.settle_unsettled(mine)  # aborts that could not be stored when they ran
        taken = []
        for table_id in await svc.store.tx(lapsed):
            if table_id in svc.live:
                continue
            if not await svc.store.tx(claim, table_id, svc.lease_values()):
                continue
            if await resume(svc, table_id):
                taken.append(table_id)
                log.warning("table %s: lease taken over by this process", table_id)
        self.takeovers += taken
        for table_id in await svc.store.tx(overdue, svc.settings.lease_ttl_s):
            if table_id in svc.unsettled:  # its refused abort: `settle_unsettled`'s, bounded
                continue
            try:  # of two processes doing so at once, one aborts it (a conditional UPDATE)
                await svc.abort(table_id, "start timeout", states=(OPEN,))
                log.warning("table %s: start timeout enforced by this process", table_id)
            except ApiError:
                pass  # started or ended meanwhile
        return taken
