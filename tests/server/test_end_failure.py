"""A paid table whose end cannot be stored for a cause that is not a lost connection (a
constraint the database refuses, a bug raising inside the transaction) must not stay
`running` forever with every stake held and its lease renewed: it is aborted once, every
stake comes back exactly once (nothing paid out), its seats are told, and the error is logged.
On a real SQLite file and a throwaway PostgreSQL; the failures are real database errors or a
real exception in a finish hook (the league's ratings run there)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

import pytest
from sqlalchemy import Connection, insert, select

from cogleague.core.episode import EpisodeOutcome
from cogleague.server import wallets
from cogleague.server.app import bootstrap
from cogleague.server.catalog import Catalog
from cogleague.server.leases import renew
from cogleague.server.live import LiveTable
from cogleague.server.settings import Settings
from cogleague.server.store import Store, accounts, now, table_row, wallet_entries
from cogleague.server.tables import TableService
from server.test_wallets import check_ledger, make_people

STAKE = 10


def _duplicate_account(conn: Connection, _live: LiveTable, _outcome: EpisodeOutcome) -> None:
    """A constraint: the accounts' unique name refuses this insert (an IntegrityError)."""
    conn.execute(insert(accounts).values(name="house", key_digest="x" * 64, role="player",
                                         created_at=now()))


def _bug(conn: Connection, _live: LiveTable, _outcome: EpisodeOutcome) -> None:
    raise RuntimeError("a bug in a finish hook")


@pytest.mark.parametrize("hook", [_duplicate_account, _bug], ids=["constraint", "bug"])
def test_an_end_that_cannot_be_stored_aborts_and_refunds_once(
        db_url: str, hook: Any, caplog: pytest.LogCaptureFixture) -> None:
    store = Store(db_url)
    bootstrap(store, "operator-key-for-end-tests")
    people = make_people(store)[1:]

    async def run() -> tuple[str, dict[str, Any], list[str], str | None]:
        svc = TableService(store, Catalog(), Settings(db_url=store.url, record_league=False))
        svc.finish_hooks.append(hook)
        made = await svc.create(people[0], {"game": "dilemma", "stake": STAKE, "pacing": False,
                                            "config": {"seats": 3, "rounds_total": 2}})
        table = str(made["id"])
        for p in people:
            await svc.join(p, table, {"kind": "scripted", "baseline": "pavlov"})
        await svc.start(people[0], table)
        room = svc.rooms[table]
        deadline = time.monotonic() + 30
        row = await store.tx(table_row, table)
        while row is not None and row["state"] == "running" and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
            row = await store.tx(table_row, table)
        await asyncio.sleep(0.2)
        held = sorted(await store.tx(renew, svc.node_id, 5.0))
        told = room.channels[0].end_text
        await svc.shutdown()
        assert row is not None
        return table, row, held, told

    try:
        with caplog.at_level(logging.WARNING, logger="cogleague.server"):
            table, row, held, told = asyncio.run(run())
        assert row["state"] == "aborted", row["state"]
        detail = json.loads(row["results"])["detail"]
        assert detail.startswith("error: the end of the table could not be stored"), detail
        assert held == []  # no lease left to renew
        assert told is not None and '"aborted"' in told, told  # the seats heard the end
        kinds = sorted(store.tx_sync(lambda c: c.execute(select(wallet_entries.c.kind).where(
            wallet_entries.c.table_id == table)).scalars().all()))
        assert kinds == ["refund"] * 3 + ["stake_hold"] * 3, kinds  # each stake back once
        for p in people:
            assert store.tx_sync(wallets.balance, p.id) == 100
        check_ledger(store)
        logged = [r for r in caplog.records if table in r.getMessage()]
        assert any(r.exc_info for r in logged), [r.getMessage() for r in logged]
    finally:
        store.close()
