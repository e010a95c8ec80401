"""A paid table whose end cannot be stored is aborted; when that abort fails too (again not a
lost connection: here a real database trigger refuses it), the table must not stay `running`
with every stake held and its lease renewed for ever. The server retries a few times, then
leaves the table to its lease round, which settles it once the database takes the abort: every
stake comes back exactly once, even with another process aborting the same table at once.
On a real SQLite file and a throwaway PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

import pytest
from sqlalchemy import Connection, select, text

from cogleague.core.episode import EpisodeOutcome
from cogleague.server import wallets
from cogleague.server.app import bootstrap
from cogleague.server.catalog import Catalog
from cogleague.server.errors import ApiError
from cogleague.server.leases import LeaseKeeper
from cogleague.server.live import LiveTable
from cogleague.server.settings import Settings
from cogleague.server.store import Store, table_row, wallet_entries
from cogleague.server.tables import SETTLE_ROUNDS, TableService
from server.test_wallets import check_ledger, make_people

STAKE = 10

SQLITE_REFUSE = ["CREATE TRIGGER refuse_abort BEFORE UPDATE ON tables "
                 "WHEN NEW.state = 'aborted' BEGIN SELECT RAISE(ABORT, 'aborts refused'); END"]
PG_REFUSE = ["CREATE FUNCTION refuse_abort() RETURNS trigger AS $$ BEGIN "
             "RAISE EXCEPTION 'aborts refused'; END $$ LANGUAGE plpgsql",
             "CREATE TRIGGER refuse_abort BEFORE UPDATE ON tables FOR EACH ROW "
             "WHEN (NEW.state = 'aborted') EXECUTE FUNCTION refuse_abort()"]


def _bug(conn: Connection, _live: LiveTable, _outcome: EpisodeOutcome) -> None:
    raise RuntimeError("a bug in a finish hook")


def _ddl(store: Store, statements: list[str]) -> None:
    def run(conn: Connection) -> None:
        for s in statements:
            conn.execute(text(s))
    store.tx_sync(run)


def test_an_abort_that_fails_is_settled_by_the_lease_round_once(db_url: str) -> None:
    store = Store(db_url)
    bootstrap(store, "operator-key-for-abort-tests")
    people = make_people(store)[1:]
    _ddl(store, PG_REFUSE if store.is_postgres else SQLITE_REFUSE)

    async def run() -> tuple[str, dict[str, Any], dict[str, Any]]:
        settings = Settings(db_url=store.url, record_league=False)
        svc = TableService(store, Catalog(), settings)
        other = TableService(store, Catalog(), settings)  # a second process on the database
        svc.finish_hooks.append(_bug)
        made = await svc.create(people[0], {"game": "dilemma", "stake": STAKE, "pacing": False,
                                            "config": {"seats": 3, "rounds_total": 2}})
        table = str(made["id"])
        for p in people:
            await svc.join(p, table, {"kind": "scripted", "baseline": "pavlov"})
        await svc.start(people[0], table)
        live = svc.live[table]
        deadline = time.monotonic() + 60
        while live.task is not None and not live.task.done() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        stuck = await store.tx(table_row, table)
        assert stuck is not None and stuck["state"] == "running"  # the trigger refused it
        _ddl(store, ["DROP TRIGGER refuse_abort ON tables", "DROP FUNCTION refuse_abort()"]
             if store.is_postgres else ["DROP TRIGGER refuse_abort"])

        async def other_abort() -> None:
            with contextlib.suppress(ApiError):  # the lease round aborted it first
                await other.abort(table, "operator")

        await asyncio.gather(LeaseKeeper(svc).tick(), other_abort())
        row = await store.tx(table_row, table)
        await svc.shutdown()
        await other.shutdown()
        assert row is not None
        return table, stuck, row

    try:
        table, _stuck, row = asyncio.run(run())
        assert row["state"] == "aborted", row["state"]
        assert json.loads(row["results"])["reason"] == "aborted"
        kinds = sorted(store.tx_sync(lambda c: c.execute(select(wallet_entries.c.kind).where(
            wallet_entries.c.table_id == table)).scalars().all()))
        assert kinds == ["refund"] * 3 + ["stake_hold"] * 3, kinds  # each stake back once
        for p in people:
            assert store.tx_sync(wallets.balance, p.id) == 100
        check_ledger(store)
    finally:
        store.close()


def test_a_failed_abort_is_not_left_running_for_ever(db_url: str) -> None:
    """While the database refuses the abort, this process keeps retrying at each lease round
    (it holds no runner for the table any more), and settles it as soon as it can."""
    store = Store(db_url)
    bootstrap(store, "operator-key-for-abort-tests")
    people = make_people(store)[1:]
    _ddl(store, PG_REFUSE if store.is_postgres else SQLITE_REFUSE)

    async def run() -> tuple[str, list[str], dict[str, Any]]:
        settings = Settings(db_url=store.url, record_league=False)
        svc = TableService(store, Catalog(), settings)
        svc.finish_hooks.append(_bug)
        made = await svc.create(people[0], {"game": "dilemma", "stake": STAKE, "pacing": False,
                                            "config": {"seats": 3, "rounds_total": 2}})
        table = str(made["id"])
        for p in people:
            await svc.join(p, table, {"kind": "scripted", "baseline": "pavlov"})
        await svc.start(people[0], table)
        live = svc.live[table]
        deadline = time.monotonic() + 60
        while live.task is not None and not live.task.done() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        keeper = LeaseKeeper(svc)
        await keeper.tick()  # still refused: a retry that fails leaves it for the next round
        still = [t for t in svc.live if t == table]
        _ddl(store, ["DROP TRIGGER refuse_abort ON tables", "DROP FUNCTION refuse_abort()"]
             if store.is_postgres else ["DROP TRIGGER refuse_abort"])
        await keeper.tick()
        await keeper.tick()  # a second round changes nothing
        row = await store.tx(table_row, table)
        await svc.shutdown()
        assert row is not None
        return table, still, row

    try:
        table, still, row = asyncio.run(run())
        assert still == []  # no runner kept for a table that ended
        assert row["state"] == "aborted", row["state"]
        kinds = sorted(store.tx_sync(lambda c: c.execute(select(wallet_entries.c.kind).where(
            wallet_entries.c.table_id == table)).scalars().all()))
        assert kinds == ["refund"] * 3 + ["stake_hold"] * 3, kinds
        check_ledger(store)
    finally:
        store.close()


def test_a_table_started_after_its_failed_abort_is_left_running(db_url: str) -> None:
    """An open table whose start-timeout abort could not be stored may still be started; the
    lease round then finds it running and leaves it alone (it does not stop its runner)."""
    store = Store(db_url)
    bootstrap(store, "operator-key-for-abort-tests")
    people = make_people(store)[1:]
    _ddl(store, PG_REFUSE if store.is_postgres else SQLITE_REFUSE)

    async def run() -> tuple[bool, bool, dict[str, Any]]:
        settings = Settings(db_url=store.url, record_league=False)
        svc = TableService(store, Catalog(), settings)
        made = await svc.create(people[0], {"game": "dilemma", "stake": STAKE,
                                            "start_timeout_s": 0.1,
                                            "config": {"seats": 3, "rounds_total": 50}})
        table = str(made["id"])
        for p in people:  # remote seats nobody connects: each turn waits for its deadline
            await svc.join(p, table, {"kind": "remote"})
        deadline = time.monotonic() + 30
        while table not in svc.unsettled and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        parked = table in svc.unsettled
        _ddl(store, ["DROP TRIGGER refuse_abort ON tables", "DROP FUNCTION refuse_abort()"]
             if store.is_postgres else ["DROP TRIGGER refuse_abort"])
        await svc.start(people[0], table)
        await LeaseKeeper(svc).tick()
        live = svc.live.get(table)
        playing = live is not None and live.task is not None and not live.task.done()
        await svc.abort(table, "operator")
        row = await store.tx(table_row, table)
        await svc.shutdown()
        assert row is not None
        return parked, playing, row

    try:
        parked, playing, row = asyncio.run(run())
        assert parked  # the start timeout's abort was refused, and left for the lease rounds
        assert playing  # the lease round did not stop the table that started meanwhile
        assert row["state"] == "aborted"
        check_ledger(store)
    finally:
        store.close()


def test_an_abort_refused_for_ever_is_given_up_loudly_once_and_kept(
        db_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """A database that never takes the abort: after `SETTLE_ROUNDS` lease rounds the process
    stops retrying it, says so once at CRITICAL, and keeps the table listed; nothing stored
    changes (the table still running, every stake still held, no refund). Once the database
    takes it, an operator's abort settles it and the list empties."""
    store = Store(db_url)
    bootstrap(store, "operator-key-for-abort-tests")
    people = make_people(store)[1:]
    _ddl(store, PG_REFUSE if store.is_postgres else SQLITE_REFUSE)

    async def run() -> tuple[str, dict[str, Any], list[str], int, int, list[str], list[str]]:
        settings = Settings(db_url=store.url, record_league=False)
        svc = TableService(store, Catalog(), settings)
        svc.finish_hooks.append(_bug)
        made = await svc.create(people[0], {"game": "dilemma", "stake": STAKE, "pacing": False,
                                            "config": {"seats": 3, "rounds_total": 2}})
        table = str(made["id"])
        for p in people:
            await svc.join(p, table, {"kind": "scripted", "baseline": "pavlov"})
        await svc.start(people[0], table)
        live = svc.live[table]
        deadline = time.monotonic() + 60
        while live.task is not None and not live.task.done() and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        keeper = LeaseKeeper(svc)
        for _ in range(SETTLE_ROUNDS + 5):
            await keeper.tick()
        stuck = await store.tx(table_row, table)
        assert stuck is not None
        listed = sorted(svc.given_up)
        rounds = svc.settle_rounds[table]
        parked = int(table in svc.unsettled)
        _ddl(store, ["DROP TRIGGER refuse_abort ON tables", "DROP FUNCTION refuse_abort()"]
             if store.is_postgres else ["DROP TRIGGER refuse_abort"])
        await keeper.tick()  # still given up: no lease round retries it
        after_tick = sorted(svc.given_up)
        await svc.abort(table, "operator")
        cleared = sorted(svc.given_up)
        await svc.shutdown()
        return table, stuck, listed, rounds, parked, after_tick, cleared

    try:
        with caplog.at_level(logging.WARNING, logger="cogleague.server"):
            table, stuck, listed, rounds, parked, after_tick, cleared = asyncio.run(run())
        assert stuck["state"] == "running"  # the refused abort changed nothing stored
        assert listed == [table] and parked == 1
        assert rounds == SETTLE_ROUNDS  # the rounds after it did not try again
        loud = [r for r in caplog.records if r.levelno == logging.CRITICAL]
        assert len(loud) == 1 and table in loud[0].getMessage()
        assert "aborts refused" in loud[0].getMessage()
        assert after_tick == [table] and cleared == []
        row = store.tx_sync(table_row, table)
        assert row is not None and row["state"] == "aborted"
        kinds = sorted(store.tx_sync(lambda c: c.execute(select(wallet_entries.c.kind).where(
            wallet_entries.c.table_id == table)).scalars().all()))
        assert kinds == ["refund"] * 3 + ["stake_hold"] * 3, kinds
        check_ledger(store)
    finally:
        store.close()
