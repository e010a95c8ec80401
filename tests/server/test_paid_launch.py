"""A paid table whose start committed but whose game never launched (a seat that cannot be
made: here the operator's policy file is gone by the start, or on the process that takes the
table over). It must not stay `running` with every stake held, renewed by the lease loop
forever: it is aborted with a reason its players can read, and every stake comes back once —
also when two processes try to take it over at the same moment. Nothing is paid out."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, select

from cogleague.core.settlement import LedgerEntry
from cogleague.server import wallets
from cogleague.server.app import bootstrap
from cogleague.server.catalog import Catalog
from cogleague.server.leases import LeaseKeeper, renew
from cogleague.server.recovery import recover
from cogleague.server.settings import Settings
from cogleague.server.store import Store, engine_url, table_row, wallet_entries
from cogleague.server.tables import Account, TableService
from server.test_wallets import check_ledger, make_people
from server.test_wallets_races import _hold_row, _let_go, _lock_waiters

POLICY = Path(__file__).resolve().parents[2] / "examples" / "rl" / "dilemma.npz"
STAKE = 10


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "policies"
    folder.mkdir()
    shutil.copy(POLICY, folder / "trained.npz")
    return folder


def _service(store: Store, folder: Path) -> TableService:
    return TableService(store, Catalog(), Settings(db_url=store.url, record_league=False,
                                                   policy_dir=str(folder)))


def _funded(store: Store) -> list[Account]:
    """The operator (who seats the policy, and pays its stake) and three players, 100 each."""
    people = make_people(store)
    store.tx_sync(wallets.apply, LedgerEntry("deposit", str(people[0].id), 100, "seed:op"))
    return people


async def _paid_table(svc: TableService, people: list[Account], others: str) -> str:
    """A 3-seat paid dilemma: the operator's policy seat, then two players (`others`: a
    scripted baseline, or "remote" for seats that never connect)."""
    made = await svc.create(people[1], {"game": "dilemma", "stake": STAKE, "pacing": False,
                                        "config": {"seats": 3, "rounds_total": 2,
                                                   "turn_deadline_ms": 60_000}})
    table = str(made["id"])
    await svc.join(people[0], table, {"kind": "policy", "policy": "trained.npz"})
    for p in people[1:3]:
        body = {"kind": "remote"} if others == "remote" else {"kind": "scripted",
                                                              "baseline": others}
        await svc.join(p, table, body)
    return table


def _assert_voided(store: Store, people: list[Account], table: str) -> None:
    kinds = sorted(store.tx_sync(lambda c: c.execute(select(wallet_entries.c.kind).where(
        wallet_entries.c.table_id == table)).scalars().all()))
    assert kinds == ["refund"] * 3 + ["stake_hold"] * 3, kinds  # each stake back once
    assert store.tx_sync(wallets.pot, table) == 0
    for p in people[:3]:
        assert store.tx_sync(wallets.balance, p.id) == 100
    check_ledger(store)


def _table(store: Store, table: str) -> dict[str, Any]:
    found = store.tx_sync(table_row, table)
    assert found is not None
    return found


def test_a_start_whose_seat_cannot_be_made_aborts_and_refunds(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    bootstrap(store, "operator-key-for-launch-tests")
    people = _funded(store)

    async def run() -> tuple[str, dict[str, Any], list[str]]:
        svc = _service(store, folder)
        table = await _paid_table(svc, people, "pavlov")
        (folder / "trained.npz").unlink()  # gone between the join and the start
        try:
            started = await svc.start(people[1], table)
        finally:
            held = sorted(await store.tx(renew, svc.node_id, 5.0))
            await svc.shutdown()
        return table, started, held

    try:
        table, started, held = asyncio.run(run())
        assert started["state"] == "aborted"
        assert held == []  # the lease loop holds nothing to renew
        row = _table(store, table)
        assert (row["state"], row["reason"]) == ("aborted", "aborted")
        detail = json.loads(row["results"])["detail"]
        assert detail == "could not start: seat 0 (policy) could not be made (ConfigError)"
        assert str(folder) not in detail  # no server path in a public document
        _assert_voided(store, people, table)
    finally:
        store.close()


def test_a_table_that_cannot_be_rebuilt_after_a_restart_aborts_and_refunds(
        tmp_path: Path) -> None:
    """SQLite: the process stops while the table runs; the policy file is gone when the next
    process starts. Its start-up must not fail, and the table is aborted and refunded."""
    folder = _folder(tmp_path)
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    bootstrap(store, "operator-key-for-launch-tests")
    people = _funded(store)

    async def first() -> str:
        svc = _service(store, folder)
        table = await _paid_table(svc, people, "remote")  # nobody connects: it waits
        assert (await svc.start(people[1], table))["state"] == "running"
        await svc.shutdown()
        return table

    async def second() -> list[str]:
        svc = _service(store, folder)
        try:
            return await recover(svc)
        finally:
            await svc.shutdown()

    try:
        table = asyncio.run(first())
        assert _table(store, table)["state"] == "running"
        (folder / "trained.npz").unlink()
        assert asyncio.run(second()) == []
        row = _table(store, table)
        assert row["state"] == "aborted"
        detail = json.loads(row["results"])["detail"]
        assert detail == "could not resume: seat 0 (policy) could not be made (ConfigError)"
        _assert_voided(store, people, table)
    finally:
        store.close()


@pytest.mark.postgres
def test_two_processes_taking_over_a_table_they_cannot_run_refund_it_once(
        pg_cluster: Any, tmp_path: Path) -> None:
    """PostgreSQL: the process running the table goes away (its lease let go); two others,
    without the policy file, claim it at the same moment (both claims queued on the table's
    row, forced). One takes the table, cannot build its seats, and aborts it; every stake
    comes back exactly once and neither process keeps renewing a lease on it."""
    folder = _folder(tmp_path)
    db = pg_cluster.new_database()
    engine = create_engine(engine_url(db))
    store_a, store_b, store_c = Store(db), Store(db), Store(db)
    bootstrap(store_a, "operator-key-for-launch-tests")
    people = _funded(store_a)

    async def run() -> tuple[str, list[list[str]], list[str]]:
        svc_a = _service(store_a, folder)
        table = await _paid_table(svc_a, people, "remote")
        assert (await svc_a.start(people[1], table))["state"] == "running"
        await svc_a.shutdown()  # lets its lease go: the others may take the table now
        (folder / "trained.npz").unlink()  # not on the hosts of the other processes
        svc_b, svc_c = _service(store_b, folder), _service(store_c, folder)
        keepers = [LeaseKeeper(svc_b), LeaseKeeper(svc_c)]
        try:
            holder = await _hold_row(engine, "tables", table)
            ticks = [asyncio.create_task(k.tick()) for k in keepers]
            await _lock_waiters(engine, 2)  # both claims queued on the table's row
            await _let_go(holder)
            taken = list(await asyncio.gather(*ticks))
            again = [t for k in keepers for t in await k.tick()]
        finally:
            await svc_b.shutdown()
            await svc_c.shutdown()
        return table, taken, again

    try:
        table, taken, again = asyncio.run(run())
        assert taken == [[], []] and again == []
        row = _table(store_a, table)
        assert row["state"] == "aborted"
        assert json.loads(row["results"])["detail"].startswith("could not resume: seat 0")
        _assert_voided(store_a, people, table)
    finally:
        for s in (store_a, store_b, store_c):
            s.close()
        engine.dispose()


@pytest.mark.postgres
def test_an_open_table_whose_process_went_away_still_times_out(pg_cluster: Any) -> None:
    """PostgreSQL: the process that created a paid table (and armed its start timeout) goes
    away before the deadline; the table never starts. Another process must still abort it
    once the deadline has passed and give the stakes back — not keep them held for as long as
    no process happens to restart."""
    db = pg_cluster.new_database()
    store_a, store_b = Store(db), Store(db)
    bootstrap(store_a, "operator-key-for-launch-tests")
    people = make_people(store_a)
    settings = Settings(db_url=db, record_league=False, lease_ttl_s=0.5,
                        lease_renew_s=0.2)  # renewal by hand (`tick`); ttl > renew

    async def run() -> tuple[str, list[str]]:
        svc_a = TableService(store_a, Catalog(), settings)
        made = await svc_a.create(people[1], {"game": "dilemma", "stake": STAKE,
                                              "start_timeout_s": 3.0,
                                              "config": {"seats": 3, "rounds_total": 1}})
        for p in people[1:3]:
            await svc_a.join(p, made["id"], {"kind": "remote"})
        await svc_a.shutdown()  # its timers go with it
        svc_b = TableService(store_b, Catalog(), settings)  # up before the table existed
        keeper = LeaseKeeper(svc_b)
        # past the deadline, and the grace a lease has
        await asyncio.sleep(max(0.0, made["start_deadline"] + 0.6 - time.time()))
        try:
            return str(made["id"]), await keeper.tick()
        finally:
            await svc_b.shutdown()

    try:
        table, taken = asyncio.run(run())
        assert taken == []
        row = _table(store_a, table)
        assert (row["state"], json.loads(row["results"])["detail"]) == ("aborted",
                                                                          "start timeout")
        assert store_a.tx_sync(wallets.pot, table) == 0
        for p in people[1:3]:
            assert store_a.tx_sync(wallets.balance, p.id) == 100
        check_ledger(store_a)
    finally:
        store_a.close()
        store_b.close()
