"""Paid tables when two server processes change the same table at once (PostgreSQL).

Two `TableService`s (two processes' worth: each its own store and database thread) share one
PostgreSQL database. The interleavings are forced, not hoped for: the test holds the table's
row lock, lets each process's request queue behind it in a chosen order (watched in
`pg_stat_activity`), then lets go. After every race every credit is accounted for: a table
that ended holds nothing, and every wallet has what the rules say.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Connection, create_engine, text

from cogleague.core import settlement
from cogleague.server import wallets
from cogleague.server.app import bootstrap
from cogleague.server.catalog import Catalog
from cogleague.server.errors import ApiError
from cogleague.server.settings import Settings
from cogleague.server.store import Store, engine_url
from cogleague.server.tables import Account, TableService
from server.test_wallets import check_ledger, make_people

pytestmark = pytest.mark.postgres
STAKE = 10


def _services(db: str) -> tuple[Store, TableService, Store, TableService]:
    store_a, store_b = Store(db), Store(db)
    bootstrap(store_a, "operator-key-for-race-tests")
    settings = Settings(db_url=db, record_league=False)
    return (store_a, TableService(store_a, Catalog(), settings),
            store_b, TableService(store_b, Catalog(), settings))


async def _lock_waiters(db_engine: Any, n: int) -> None:
    """Until `n` sessions wait for a lock (the requests have queued behind the test's)."""
    def count() -> int:
        with db_engine.connect() as conn:
            return int(conn.execute(text(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND datname = current_database()")).scalar_one())

    deadline = time.monotonic() + 20
    while await asyncio.to_thread(count) < n:
        assert time.monotonic() < deadline, f"fewer than {n} requests queued on the lock"
        await asyncio.sleep(0.02)


async def _hold_row(db_engine: Any, table: str, row_id: Any) -> Connection:
    """The row locked by the test (``FOR UPDATE``) until `_let_go`: requests queue behind it."""
    holder: Connection = await asyncio.to_thread(db_engine.connect)
    holder.begin()
    await asyncio.to_thread(holder.execute, text(
        f"SELECT id FROM {table} WHERE id = :i FOR UPDATE"), {"i": row_id})
    return holder


async def _let_go(holder: Connection) -> None:
    await asyncio.to_thread(holder.commit)
    await asyncio.to_thread(holder.close)


@contextlib.contextmanager
def _closed_after(store_a: Store, store_b: Store, db_engine: Any) -> Iterator[None]:
    try:
        yield
    finally:
        store_a.close()
        store_b.close()
        db_engine.dispose()


def test_abort_racing_a_join_on_another_process_refunds_the_joiner(pg_cluster: Any) -> None:
    """Process A aborts an open table (an operator, or its start timeout) while process B
    seats a player: B's join commits between A's read of the seats and A's write. The
    joiner's stake must come back like everyone else's — an aborted table holds nothing."""
    db = pg_cluster.new_database()
    store_a, svc_a, store_b, svc_b = _services(db)
    people = make_people(store_a)
    engine = create_engine(engine_url(db))

    async def race() -> None:
        made = await svc_a.create(people[1], {"game": "dilemma", "stake": STAKE,
                                              "config": {"seats": 3, "rounds_total": 1}})
        table = made["id"]
        await svc_a.join(people[1], table, {"kind": "scripted", "baseline": "pavlov"})
        holder = await _hold_row(engine, "tables", table)
        joining = asyncio.create_task(svc_b.join(people[2], table, {
            "kind": "scripted", "baseline": "pavlov"}))
        await _lock_waiters(engine, 1)  # B's join holds its read, queued for the row
        aborting = asyncio.create_task(svc_a.abort(table))
        await _lock_waiters(engine, 2)  # A read the seats without B's, queued behind B
        await _let_go(holder)
        joined, aborted = await asyncio.gather(joining, aborting)
        assert joined["seat"] == 1 and aborted["state"] == "aborted"
        assert await store_a.tx(wallets.pot, table) == 0, "the aborted table still holds stakes"
        for p in people[1:3]:
            assert await store_a.tx(wallets.balance, p.id) == 100
        await svc_a.shutdown()
        await svc_b.shutdown()

    with _closed_after(store_a, store_b, engine):
        asyncio.run(race())
        check_ledger(store_a)


def test_start_racing_a_leave_on_another_process_is_refused(pg_cluster: Any) -> None:
    """Process A starts a full paid table while process B gives a seat back: B's leave (its
    stake released) commits between A's read of the seats and A's write. The start must be
    refused (the table is no longer full) and leave the table open with the other stakes
    held — not a running table short of a seat, holding stakes it can never settle."""
    db = pg_cluster.new_database()
    store_a, svc_a, store_b, svc_b = _services(db)
    people = make_people(store_a)
    engine = create_engine(engine_url(db))

    async def race() -> None:
        made = await svc_a.create(people[1], {"game": "dilemma", "stake": STAKE,
                                              "config": {"seats": 3, "rounds_total": 1}})
        table = made["id"]
        for p in people[1:4]:
            await svc_a.join(p, table, {"kind": "scripted", "baseline": "pavlov"})
        holder = await _hold_row(engine, "tables", table)
        leaving = asyncio.create_task(svc_b.leave(people[3], table))
        await _lock_waiters(engine, 1)  # B's leave queued for the row
        starting = asyncio.create_task(svc_a.start(people[1], table))
        await _lock_waiters(engine, 2)  # A saw every seat taken, queued behind B
        await _let_go(holder)
        left, started = await asyncio.gather(leaving, starting, return_exceptions=True)
        assert left == {"table": table, "seat": 2, "released": STAKE}
        row, seat_list = await svc_a.row(table)
        assert isinstance(started, ApiError) and started.code == "wrong_state", (
            started, row["state"])
        assert row["state"] == "open" and len(seat_list) == 2
        assert await store_a.tx(wallets.pot, table) == 2 * STAKE
        await svc_a.abort(table)
        assert await store_a.tx(wallets.pot, table) == 0
        await svc_a.shutdown()
        await svc_b.shutdown()

    with _closed_after(store_a, store_b, engine):
        asyncio.run(race())
        check_ledger(store_a)


def test_the_same_grant_applied_by_two_processes_at_once_is_applied_once(
        pg_cluster: Any) -> None:
    """A client retries an operator grant (same idempotency key) while the first request is
    still in flight, and the two land on two processes. Both check the key before either
    commits; the second must answer `applied: false`, not fail on the key's unique index."""
    db = pg_cluster.new_database()
    store_a, _, store_b, _ = _services(db)
    people = make_people(store_a)
    who = people[1].id
    engine = create_engine(engine_url(db))
    entry = settlement.deposit(wallets.ledger_name(who), 25, f"grant:{who}:retried")

    async def race() -> list[bool]:
        holder = await _hold_row(engine, "accounts", who)
        first = asyncio.create_task(store_a.tx(wallets.apply, entry))
        await _lock_waiters(engine, 1)
        second = asyncio.create_task(store_b.tx(wallets.apply, entry))
        await _lock_waiters(engine, 2)
        await _let_go(holder)
        return list(await asyncio.gather(first, second))

    with _closed_after(store_a, store_b, engine):
        assert sorted(asyncio.run(race())) == [False, True]
        assert store_a.tx_sync(wallets.balance, who) == 100 + 25
        check_ledger(store_a)


def test_a_start_timeout_racing_a_start_on_another_process_leaves_it_running(
        pg_cluster: Any) -> None:
    """The start timeout fires on the creating process A as process B starts the table: A
    read it open, B's start commits first. The timeout only aborts tables that never started:
    the table plays to its end on B and settles by points."""
    db = pg_cluster.new_database()
    store_a, svc_a, store_b, svc_b = _services(db)
    people = make_people(store_a)
    engine = create_engine(engine_url(db))

    async def race() -> dict[str, Any]:
        made = await svc_a.create(people[1], {"game": "dilemma", "stake": STAKE,
                                              "pacing": False,
                                              "config": {"seats": 3, "rounds_total": 2}})
        table = made["id"]
        for p in people[1:4]:
            await svc_a.join(p, table, {"kind": "scripted", "baseline": "pavlov"})
        holder = await _hold_row(engine, "tables", table)
        starting = asyncio.create_task(svc_b.start(people[1], table))
        await _lock_waiters(engine, 1)  # B's start queued for the row
        svc_a.schedule_timeout(table, 0.0)  # A's timeout fires now, reads it open
        await _lock_waiters(engine, 2)
        await _let_go(holder)
        assert (await starting)["state"] == "running"
        for _ in range(300):
            row, _ = await svc_a.row(table)
            if row["state"] != "running":
                break
            await asyncio.sleep(0.02)
        await svc_a.shutdown()
        await svc_b.shutdown()
        return row

    with _closed_after(store_a, store_b, engine):
        row = asyncio.run(race())
        assert (row["state"], row["reason"]) == ("finished", "complete"), row["results"]
        assert store_a.tx_sync(wallets.pot, row["id"]) == 0
        check_ledger(store_a)


class CommitCutter:
    """A TCP proxy in front of PostgreSQL. Once armed, it forwards the COMMIT of the next
    transaction that sent `marker`, then cuts that connection before the answer comes back:
    the transaction is committed, and the client sees its connection lost mid-commit."""

    def __init__(self, target_port: int, marker: bytes) -> None:
        self.target_port = target_port
        self.marker = marker
        self.armed = False
        self.cuts = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target_port))
            muted = threading.Event()  # set: nothing more goes back to the client
            threading.Thread(target=self._pump, args=(client, server, muted, True),
                             daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, muted, False),
                             daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, muted: threading.Event,
              upstream: bool) -> None:
        wrote = False
        try:
            while data := src.recv(65536):
                if not upstream:
                    if muted.is_set():
                        break
                    dst.sendall(data)
                    continue
                wrote = wrote or (self.armed and self.marker in data)
                cut = wrote and b"COMMIT" in data
                if cut:
                    muted.set()
                    self.armed = False
                    self.cuts += 1
                dst.sendall(data)
                if cut:
                    time.sleep(0.3)  # the server commits; its answer is never delivered
                    break
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.listener.close()


def _through_cutter(pg_cluster: Any, marker: bytes
                    ) -> tuple[Store, list[Account], CommitCutter, Store, TableService]:
    """A database with accounts (read directly through `store_a`) and a process whose
    connections go through a `CommitCutter` for `marker`."""
    db = pg_cluster.new_database()
    store_a = Store(db)
    bootstrap(store_a, "operator-key-for-race-tests")
    cutter = CommitCutter(pg_cluster.port, marker)
    via = db.replace(f":{pg_cluster.port}/", f":{cutter.port}/")
    store = Store(via)
    return (store_a, make_people(store_a), cutter, store,
            TableService(store, Catalog(), Settings(db_url=via, record_league=False)))


def test_a_join_whose_commit_answer_was_lost_is_reported_joined(pg_cluster: Any) -> None:
    """The join's transaction (seat and stake hold) commits, but the connection dies before
    the answer arrives; the store tries the transaction again, which finds the seat taken —
    by this very join. The player must get the seat and its token (the stake is held for it),
    not a refusal for a seat it holds and pays for."""
    store_a, people, cutter, store, svc = _through_cutter(pg_cluster, b"INSERT INTO seats")

    async def join() -> tuple[str, dict[str, Any]]:
        made = await svc.create(people[1], {"game": "dilemma", "stake": STAKE,
                                            "config": {"seats": 3, "rounds_total": 1}})
        cutter.armed = True
        joined = await svc.join(people[2], made["id"], {"kind": "remote"})
        await svc.shutdown()
        return made["id"], joined

    try:
        table, joined = asyncio.run(join())
        assert cutter.cuts == 1
        assert joined["seat"] == 0 and joined["token"]
        assert store_a.tx_sync(wallets.balance, people[2].id) == 100 - STAKE
        assert store_a.tx_sync(wallets.pot, table) == STAKE
        check_ledger(store_a)
    finally:
        store.close()
        store_a.close()
        cutter.close()


def test_an_abort_whose_commit_answer_was_lost_refunds_once_and_ends_the_room(
        pg_cluster: Any) -> None:
    """The abort's transaction (state and refunds) commits, the answer is lost, the retry
    finds the table aborted — by itself. Every stake comes back once, and the seats here are
    told the table ended (aborted), as after any abort."""
    store_a, people, cutter, store, svc = _through_cutter(pg_cluster, b"UPDATE tables SET state")

    async def abort() -> tuple[str, dict[str, Any], str]:
        made = await svc.create(people[1], {"game": "dilemma", "stake": STAKE,
                                            "config": {"seats": 3, "rounds_total": 1}})
        for p in people[1:3]:
            await svc.join(p, made["id"], {"kind": "remote"})
        room = svc.rooms[made["id"]]
        cutter.armed = True
        done = await svc.abort(made["id"])
        await svc.shutdown()
        return made["id"], done, room.state

    try:
        table, done, room_state = asyncio.run(abort())
        assert cutter.cuts == 1
        assert done["state"] == "aborted" and room_state == "aborted"
        for p in people[1:3]:
            assert store_a.tx_sync(wallets.balance, p.id) == 100
        assert store_a.tx_sync(wallets.pot, table) == 0
        check_ledger(store_a)
    finally:
        store.close()
        store_a.close()
        cutter.close()


def test_a_finish_whose_commit_answer_was_lost_pays_once(pg_cluster: Any) -> None:
    """The end's transaction (results and the whole settlement) commits, the answer is lost,
    the retry finds the table finished — by itself. The pot is paid once, by the points."""
    store_a, people, cutter, store, svc = _through_cutter(pg_cluster, b"UPDATE tables SET state")

    async def play() -> tuple[str, str]:
        made = await svc.create(people[1], {"game": "dilemma", "stake": STAKE, "pacing": False,
                                            "config": {"seats": 3, "rounds_total": 3}})
        for p, base in zip(people[1:], ["always_defect", "tit_for_tat", "pavlov"], strict=True):
            await svc.join(p, made["id"], {"kind": "scripted", "baseline": base})
        await svc.start(people[1], made["id"])
        cutter.armed = True  # the next state change is the end
        room = svc.rooms[made["id"]]
        task = svc.live[made["id"]].task
        assert task is not None
        await task
        await svc.shutdown()
        return made["id"], room.state

    try:
        table, room_state = asyncio.run(play())
        assert cutter.cuts == 1 and room_state == "finished"
        row = store_a.tx_sync(lambda c: c.execute(text(
            "SELECT state, results FROM tables WHERE id = :t"), {"t": table}).one())
        assert row.state == "finished"
        payouts = settlement.split_pot(STAKE, 500, json.loads(row.results)["scores"]).payouts
        for p, paid in zip(people[1:], payouts, strict=True):
            assert store_a.tx_sync(wallets.balance, p.id) == 100 - STAKE + paid
        assert store_a.tx_sync(wallets.pot, table) == 0
        check_ledger(store_a)
    finally:
        store.close()
        store_a.close()
        cutter.close()


def test_a_start_whose_commit_answer_was_lost_runs_the_table(pg_cluster: Any) -> None:
    """The start's transaction commits, the answer is lost, the retry finds the table running
    — started by itself. The table must run here and settle, not be left running with nobody
    playing it and every stake held."""
    store_a, people, cutter, store, svc = _through_cutter(pg_cluster, b"UPDATE tables SET state")

    async def play() -> str:
        made = await svc.create(people[1], {"game": "dilemma", "stake": STAKE, "pacing": False,
                                            "config": {"seats": 3, "rounds_total": 3}})
        for p in people[1:]:
            await svc.join(p, made["id"], {"kind": "scripted", "baseline": "pavlov"})
        cutter.armed = True
        assert (await svc.start(people[1], made["id"]))["state"] == "running"
        task = svc.live[made["id"]].task
        assert task is not None
        await task
        await svc.shutdown()
        return str(made["id"])

    try:
        table = asyncio.run(play())
        assert cutter.cuts == 1
        state = store_a.tx_sync(lambda c: c.execute(text(
            "SELECT state FROM tables WHERE id = :t"), {"t": table}).scalar_one())
        assert state == "finished"
        assert store_a.tx_sync(wallets.pot, table) == 0
        check_ledger(store_a)
    finally:
        store.close()
        store_a.close()
        cutter.close()


def test_a_leave_whose_commit_answer_was_lost_releases_the_stake_once(pg_cluster: Any) -> None:
    """The leave's transaction (seat gone, stake released) commits, the answer is lost, the
    retry runs it again: the release's idempotency key makes it a no-op, the stake comes
    back once."""
    store_a, people, cutter, store, svc = _through_cutter(pg_cluster, b"DELETE FROM seats")

    async def leave() -> tuple[str, dict[str, Any]]:
        made = await svc.create(people[1], {"game": "dilemma", "stake": STAKE,
                                            "config": {"seats": 3, "rounds_total": 1}})
        await svc.join(people[2], made["id"], {"kind": "remote"})
        cutter.armed = True
        left = await svc.leave(people[2], made["id"])
        await svc.shutdown()
        return made["id"], left

    try:
        table, left = asyncio.run(leave())
        assert cutter.cuts == 1 and left["released"] == STAKE
        assert store_a.tx_sync(wallets.balance, people[2].id) == 100
        assert store_a.tx_sync(wallets.pot, table) == 0
        check_ledger(store_a)
    finally:
        store.close()
        store_a.close()
        cutter.close()


def test_a_create_whose_commit_answer_was_lost_answers_with_the_table(pg_cluster: Any) -> None:
    """The create's transaction commits, the answer is lost, the retry runs it again. The
    creator gets the table (and this process its start timeout), not an error for a paid
    table that then exists unknown to its creator and never times out."""
    store_a, people, cutter, store, svc = _through_cutter(pg_cluster, b"INSERT INTO tables")

    async def create() -> dict[str, Any]:
        cutter.armed = True
        made = await svc.create(people[1], {"game": "dilemma", "stake": STAKE,
                                            "start_timeout_s": 0.5,
                                            "config": {"seats": 3, "rounds_total": 1}})
        await svc.join(people[2], made["id"], {"kind": "remote"})
        for _ in range(100):  # the start timeout aborts it and refunds the stake
            row, _ = await svc.row(made["id"])
            if row["state"] == "aborted":
                break
            await asyncio.sleep(0.05)
        await svc.shutdown()
        return row

    try:
        row = asyncio.run(create())
        assert cutter.cuts == 1 and row["state"] == "aborted"
        assert store_a.tx_sync(wallets.balance, people[2].id) == 100
        check_ledger(store_a)
    finally:
        store.close()
        store_a.close()
        cutter.close()


def test_the_last_two_joins_on_two_processes_auto_start_the_table(pg_cluster: Any) -> None:
    """An `auto_start` paid table gets its last two players at once, one on each process:
    each join read the seats before the other's committed, so neither saw the table full
    when it read. The table is full all the same: it must start (and settle by points),
    not wait open with every stake held until its start timeout refunds them."""
    db = pg_cluster.new_database()
    store_a, svc_a, store_b, svc_b = _services(db)
    people = make_people(store_a)
    engine = create_engine(engine_url(db))

    async def race() -> dict[str, Any]:
        made = await svc_a.create(people[1], {"game": "dilemma", "stake": STAKE,
                                              "pacing": False, "auto_start": True,
                                              "config": {"seats": 3, "rounds_total": 2}})
        table = made["id"]
        await svc_a.join(people[1], table, {"kind": "scripted", "baseline": "pavlov"})
        holder = await _hold_row(engine, "tables", table)
        joins = [asyncio.create_task(svc_b.join(people[2], table, {
            "kind": "scripted", "baseline": "tit_for_tat", "seat": 1}))]
        await _lock_waiters(engine, 1)  # B read one seat taken, queued for the row
        joins.append(asyncio.create_task(svc_a.join(people[3], table, {
            "kind": "scripted", "baseline": "always_defect", "seat": 2})))
        await _lock_waiters(engine, 2)  # A read one seat taken too, queued behind B
        await _let_go(holder)
        await asyncio.gather(*joins)
        for _ in range(300):
            row, _ = await svc_a.row(table)
            if row["state"] not in ("open", "running"):
                break
            await asyncio.sleep(0.02)
        await svc_a.shutdown()
        await svc_b.shutdown()
        return row

    with _closed_after(store_a, store_b, engine):
        row = asyncio.run(race())
        assert (row["state"], row["reason"]) == ("finished", "complete"), row["state"]
        assert store_a.tx_sync(wallets.pot, row["id"]) == 0
        check_ledger(store_a)


def test_two_joins_asking_for_any_seat_on_two_processes_both_get_one(pg_cluster: Any) -> None:
    """Two players join a paid table at once on two processes without naming a seat; both
    read the same first free seat. Seats remain for both: each must get one (and pay for
    it), not a `table_full` refusal for a table with a free seat."""
    db = pg_cluster.new_database()
    store_a, svc_a, store_b, svc_b = _services(db)
    people = make_people(store_a)
    engine = create_engine(engine_url(db))

    async def race() -> tuple[str, list[Any]]:
        made = await svc_a.create(people[1], {"game": "dilemma", "stake": STAKE,
                                              "config": {"seats": 3, "rounds_total": 1}})
        table = made["id"]
        holder = await _hold_row(engine, "tables", table)
        joins = [asyncio.create_task(svc_b.join(people[2], table, {"kind": "remote"}))]
        await _lock_waiters(engine, 1)
        joins.append(asyncio.create_task(svc_a.join(people[3], table, {"kind": "remote"})))
        await _lock_waiters(engine, 2)
        await _let_go(holder)
        done = await asyncio.gather(*joins, return_exceptions=True)
        await svc_a.shutdown()
        await svc_b.shutdown()
        return table, done

    with _closed_after(store_a, store_b, engine):
        table, done = asyncio.run(race())
        assert not [d for d in done if isinstance(d, BaseException)], done
        assert sorted(d["seat"] for d in done) == [0, 1]
        assert store_a.tx_sync(wallets.pot, table) == 2 * STAKE
        check_ledger(store_a)


def test_a_second_leave_after_the_seat_was_taken_again_leaves_the_new_player_seated(
        pg_cluster: Any) -> None:
    """A player's leave is sent twice (a retry) and lands on two processes; between the two,
    another player joins and gets the seat the first leave gave back. The second leave read
    the seat as the leaver's: it must not delete the newcomer's seat (whose stake would then
    be held by a table that seats nobody for it, never to be refunded)."""
    db = pg_cluster.new_database()
    store_a, svc_a, store_b, svc_b = _services(db)
    store_c = Store(db)
    svc_c = TableService(store_c, Catalog(), Settings(db_url=db, record_league=False))
    people = make_people(store_a)
    engine = create_engine(engine_url(db))
    leaver, newcomer = people[1], people[2]

    async def race() -> tuple[str, list[Any]]:
        made = await svc_a.create(leaver, {"game": "dilemma", "stake": STAKE,
                                           "config": {"seats": 3, "rounds_total": 1}})
        table = made["id"]
        await svc_a.join(leaver, table, {"kind": "remote"})
        holder = await _hold_row(engine, "tables", table)
        steps = [asyncio.create_task(svc_a.leave(leaver, table))]
        await _lock_waiters(engine, 1)
        steps.append(asyncio.create_task(svc_b.join(newcomer, table, {"kind": "remote"})))
        await _lock_waiters(engine, 2)
        steps.append(asyncio.create_task(svc_c.leave(leaver, table)))  # the retry
        await _lock_waiters(engine, 3)
        await _let_go(holder)
        done = list(await asyncio.gather(*steps, return_exceptions=True))
        seated = await svc_a.row(table)
        assert [(s["seat"], s["account_id"]) for s in seated[1]] == [(0, newcomer.id)], done
        await svc_a.abort(table)  # the newcomer's stake comes back with the abort
        for svc in (svc_a, svc_b, svc_c):
            await svc.shutdown()
        return table, done

    try:
        with _closed_after(store_a, store_b, engine):
            table, done = asyncio.run(race())
            assert done[1]["seat"] == 0
            assert done[2] == done[0]  # the retry answers as the leave did; no 2nd release
            for p in (leaver, newcomer):
                assert store_a.tx_sync(wallets.balance, p.id) == 100
            assert store_a.tx_sync(wallets.pot, table) == 0
            check_ledger(store_a)
    finally:
        store_c.close()
