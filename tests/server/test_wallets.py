"""Wallet conservation under random sequences of joins, leaves, settlements and aborts.

Runs the real `TableService` on a real database (an SQLite file, and PostgreSQL), and after
every operation checks the SQL ledger against the dilemma's pure reference model: replaying
every stored row into `games.dilemma.wallets.Wallets` must be accepted, conserve credits, and
give the same balances."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, select

from cogleague.core.settlement import LedgerEntry, split_pot
from cogleague.core.wallets import Wallets
from cogleague.server import wallets
from cogleague.server.app import bootstrap
from cogleague.server.catalog import Catalog
from cogleague.server.errors import ApiError
from cogleague.server.recovery import recover
from cogleague.server.settings import Settings
from cogleague.server.store import Store, accounts, now, tables, wallet_entries
from cogleague.server.tables import Account, TableService

SIGN = {"deposit": 1, "stake_hold": -1, "stake_release": 1, "payout": 1, "rake": 1,
        "refund": 1}
N_ACCOUNTS = 4

ops = st.lists(st.tuples(st.sampled_from(["create", "join", "join", "join", "leave", "abort",
                                          "finish", "grant"]),
                         st.integers(0, N_ACCOUNTS - 1), st.integers(0, 3),
                         st.integers(1, 40)), min_size=5, max_size=20)


def check_ledger(store: Store) -> None:
    def read(conn: Any) -> tuple[list[Any], dict[int, str], dict[str, int]]:
        rows = conn.execute(select(wallet_entries).order_by(wallet_entries.c.id)).mappings().all()
        roles = {r.id: r.role for r in conn.execute(select(accounts.c.id, accounts.c.role))}
        return list(rows), roles, wallets.totals(conn)

    rows, roles, totals = store.tx_sync(read)
    ended = store.tx_sync(lambda c: c.execute(select(tables.c.id).where(
        tables.c.state.in_(("finished", "aborted")))).scalars().all())
    for table_id in ended:  # a table that ended holds nothing: it paid or refunded it all
        assert store.tx_sync(wallets.pot, table_id) == 0, table_id
    model = Wallets()
    for r in rows:
        name = "house" if roles[r["account_id"]] == "house" else str(r["account_id"])
        model.apply(LedgerEntry(r["kind"], name, SIGN[r["kind"]] * r["amount"],
                                r["idempotency_key"], r["table_id"]))
    assert model.conserved()
    assert totals["balances"] + totals["held"] + totals["house"] == totals["deposits"]
    assert totals["deposits"] == model.deposits and totals["house"] == model.house
    for r in rows:
        if roles[r["account_id"]] == "player":
            sql_balance = store.tx_sync(wallets.balance, r["account_id"])
            assert sql_balance == model.balance(str(r["account_id"])) >= 0


async def run_ops(store: Store, people: list[Account], sequence: list[tuple[str, int, int, int]]
                  ) -> None:
    svc = TableService(store, Catalog(), Settings(db_url=store.url, record_league=False))
    tables: list[str] = []
    for op, who, which, amount in sequence:
        person = people[who]
        table = tables[which % len(tables)] if tables else None
        try:
            if op == "create" or table is None:
                doc = await svc.create(person, {"game": "dilemma", "stake": amount,
                                                "config": {"seats": 3, "rounds_total": 1}})
                tables.append(doc["id"])
            elif op == "join":
                await svc.join(person, table, {"kind": "scripted", "baseline": "always_defect"
                                               if amount % 2 else "tit_for_tat"})
            elif op == "leave":
                await svc.leave(person, table)
            elif op == "abort":
                await svc.abort(table)
            elif op == "grant":
                def grant(conn: Any, pid: int = person.id, n: int = amount) -> None:
                    wallets.apply(conn, LedgerEntry("deposit", str(pid), n,
                                                    f"test-grant:{pid}:{now()}"))
                await store.tx(grant)
            elif op == "finish":  # whoever can still pay joins, then the operator starts it
                for other in people[1:]:
                    with contextlib.suppress(ApiError):
                        await svc.join(other, table, {"kind": "scripted", "baseline": "pavlov"})
                await svc.start(people[0], table)
                live = svc.live.get(table)
                if live is not None and live.task is not None:
                    await live.task
        except ApiError as exc:
            assert exc.code in ("wrong_state", "already_seated", "table_full",
                                "insufficient_funds", "not_found", "forbidden", "rate_limited")
        check_ledger(store)
    await svc.shutdown()


def make_people(store: Store) -> list[Account]:
    def write(conn: Any) -> list[Account]:
        out = [Account(int(conn.execute(select(accounts.c.id).where(
            accounts.c.role == "operator")).scalar_one()), "operator", "operator")]
        for i in range(N_ACCOUNTS - 1):
            aid = conn.execute(insert(accounts).values(
                name=f"p{i}", key_digest=f"digest{i}", role="player", created_at=now())
            ).inserted_primary_key[0]
            wallets.apply(conn, LedgerEntry("deposit", str(aid), 100, f"seed:{aid}"))
            out.append(Account(aid, f"p{i}", "player"))
        return out

    return store.tx_sync(write)


def test_conservation_under_random_operations(db_url: str) -> None:
    store = Store(db_url)
    bootstrap(store, "operator-key-for-wallet-tests")
    people = make_people(store)

    @settings(max_examples=6, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @example([("create", 1, 0, 10), ("join", 1, 0, 1), ("join", 2, 0, 2), ("leave", 2, 0, 1),
              ("join", 3, 0, 1), ("abort", 0, 0, 1), ("create", 2, 1, 7), ("finish", 1, 1, 1),
              ("grant", 2, 0, 5), ("create", 3, 2, 40), ("finish", 3, 2, 1)])
    @given(ops)
    def run(sequence: list[tuple[str, int, int, int]]) -> None:
        asyncio.run(run_ops(store, people, sequence))

    try:
        run()
        finished = store.tx_sync(lambda c: c.execute(select(wallet_entries.c.kind).where(
            wallet_entries.c.kind.in_(("payout", "refund", "stake_release")))).all())
        kinds = {k for (k,) in finished}
        assert {"payout", "refund"} <= kinds  # the sequences did settle and abort tables
    finally:
        store.close()


def test_settlement_is_one_transaction(tmp_path: Any) -> None:
    """A settlement that cannot be applied whole leaves nothing behind."""
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    bootstrap(store, "operator-key-for-wallet-tests")
    people = make_people(store)
    payer = people[1]

    def partial(conn: Any) -> None:
        wallets.apply(conn, LedgerEntry("stake_hold", str(payer.id), 10, "t:hold", "t"))
        wallets.apply(conn, LedgerEntry("payout", str(payer.id), 10, "t:payout:0", "t"))
        wallets.apply(conn, LedgerEntry("rake", "house", 1, "t:rake", "t"))  # more than held

    try:
        store.tx_sync(partial)
    except ApiError as exc:
        assert exc.code == "wrong_state"
    else:
        raise AssertionError("an over-paying settlement was accepted")
    assert store.tx_sync(wallets.balance, payer.id) == 100
    assert store.tx_sync(wallets.pot, "t") == 0
    check_ledger(store)
    store.close()


def test_a_table_logged_to_its_end_but_not_settled_settles_once_after_a_restart(
        tmp_path: Any) -> None:
    """The process dies after the last step is durable but before the settlement commits
    (here: the process stops inside the end's transaction, which rolls back whole). The next
    process resumes the table from its log, finds it over, and pays the pot exactly once,
    by the points: the same split the first process would have paid."""
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    bootstrap(store, "operator-key-for-wallet-tests")
    people = make_people(store)

    class ProcessDied(BaseException):
        """Not an `Exception`: an error of the end is the table's to abort (and refund,
        test_end_failure.py); this stands for the process stopping, which nothing handles."""

    def crash(*_: Any) -> None:
        raise ProcessDied("the process died here")

    async def first() -> tuple[str, list[int]]:
        svc = TableService(store, Catalog(), Settings(db_url=store.url, record_league=False))
        svc.finish_hooks.append(crash)
        made = await svc.create(people[1], {"game": "dilemma", "stake": 30, "pacing": False,
                                            "config": {"seats": 3, "rounds_total": 3}})
        for p, base in zip(people[1:], ["always_defect", "tit_for_tat", "pavlov"], strict=True):
            await svc.join(p, made["id"], {"kind": "scripted", "baseline": base})
        await svc.start(people[1], made["id"])
        task = svc.live[made["id"]].task
        assert task is not None
        with contextlib.suppress(ProcessDied):
            await task
        row, _ = await svc.row(made["id"])
        assert row["state"] == "running" and await store.tx(wallets.pot, made["id"]) == 90
        await svc.shutdown()
        return made["id"], [await store.tx(wallets.balance, p.id) for p in people[1:]]

    async def second(table_id: str) -> dict[str, Any]:
        svc = TableService(store, Catalog(), Settings(db_url=store.url, record_league=False))
        assert await recover(svc) == [table_id]
        task = svc.live[table_id].task
        assert task is not None
        await task
        assert await recover(svc) == []  # a second start-up finds nothing to do
        row, _ = await svc.row(table_id)
        await svc.shutdown()
        return row

    try:
        table_id, before = asyncio.run(first())
        row = asyncio.run(second(table_id))
        assert row["state"] == "finished"
        results = json.loads(row["results"])
        split = split_pot(30, 500, results["scores"])
        after = [store.tx_sync(wallets.balance, p.id) for p in people[1:]]
        assert [a - b for a, b in zip(after, before, strict=True)] == split.payouts
        assert [s["payout"] for s in results["seats"]] == split.payouts
        assert store.tx_sync(wallets.pot, table_id) == 0
        check_ledger(store)
    finally:
        store.close()


def test_a_start_timeout_firing_as_the_table_starts_does_not_abort_it(tmp_path: Any) -> None:
    """The start timeout fires while the creator's start is in flight: the timeout read the
    table open, the start then ran it. The timeout is for tables that never started: the
    table plays to its end and settles by points (not refunded as aborted)."""
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    bootstrap(store, "operator-key-for-wallet-tests")
    people = make_people(store)

    async def race() -> dict[str, Any]:
        svc = TableService(store, Catalog(), Settings(db_url=store.url, record_league=False))
        made = await svc.create(people[1], {"game": "dilemma", "stake": 30, "pacing": False,
                                            "config": {"seats": 3, "rounds_total": 2}})
        table_id = made["id"]
        for p, base in zip(people[1:], ["always_defect", "tit_for_tat", "pavlov"], strict=True):
            await svc.join(p, table_id, {"kind": "scripted", "baseline": base})
        svc.schedule_timeout(table_id, 0.0)  # due now: it fires as the start begins
        started = await svc.start(people[1], table_id)
        assert started["state"] == "running"
        for _ in range(1500):
            row, _ = await svc.row(table_id)
            if row["state"] != "running":
                break
            await asyncio.sleep(0.02)
        await svc.shutdown()
        return row

    try:
        row = asyncio.run(race())
        assert (row["state"], row["reason"]) == ("finished", "complete"), row["results"]
        assert store.tx_sync(wallets.pot, row["id"]) == 0
        check_ledger(store)
    finally:
        store.close()
