"""The server's database: accounts, wallet ledger, tables, seats and each table's episode log.

SQLAlchemy 2 Core over a synchronous engine. SQLite (WAL) is the default, PostgreSQL is used by
URL (``postgresql://…`` runs on psycopg 3). All database work runs on ONE worker thread, so the
event loop never blocks on I/O and writes are naturally serialized (SQLite has one writer
anyway). Log appends from all running tables are group-committed: whatever queued up while the
previous transaction ran is written in the next single transaction, and each waiter resumes
only after its rows are committed — that is what "commit before broadcast" rests on.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    insert,
    select,
)
from sqlalchemy.engine import Engine

from cogleague.core import jsonio

T = TypeVar("T")

metadata = MetaData()

accounts = Table(
    "accounts", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("key_digest", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False),  # player | operator | house
    Column("created_at", Float, nullable=False),
)

wallet_entries = Table(
    "wallet_entries", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("table_id", String(40), nullable=True, index=True),
    Column("idempotency_key", String(200), nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
)

tables = Table(
    "tables", metadata,
    Column("id", String(40), primary_key=True),
    Column("game", String(32), nullable=False),
    Column("variant", String(64), nullable=True),
    Column("config", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("stake", BigInteger, nullable=False, default=0),
    Column("fill_with", String(64), nullable=True),
    Column("auto_start", Boolean, nullable=False, default=False),
    Column("pacing", Boolean, nullable=False, default=True),
    Column("info", Text, nullable=False),  # aliases and the public config, fixed at creation
    Column("num_seats", Integer, nullable=False),
    Column("state", String(16), nullable=False, index=True),
    Column("creator_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("start_deadline", Float, nullable=False),
    Column("started_at", Float, nullable=True),
    Column("finished_at", Float, nullable=True),
    Column("reason", String(32), nullable=True),
    Column("results", Text, nullable=True),
    Column("replay", Text, nullable=True),
)

seats = Table(
    "seats", metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=True),  # None: filler
    Column("kind", String(16), nullable=False),  # remote | scripted | llm
    Column("policy_name", String(200), nullable=False),
    Column("baseline", String(64), nullable=True),
    Column("prompt", Text, nullable=True),
    Column("model", String(200), nullable=True),
    Column("token_digest", String(64), nullable=False),
    Column("note", String(200), nullable=True),
    Column("joined_at", Float, nullable=False),
    UniqueConstraint("table_id", "account_id", name="one_seat_per_account"),
)

log_entries = Table(
    "log_entries", metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("entry", Text, nullable=False),
    Column("events", Text, nullable=False),
)

meta = Table(
    "meta", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

Index("wallet_entries_account_kind", wallet_entries.c.account_id, wallet_entries.c.kind)


def engine_url(url: str) -> str:
    """``postgresql://`` and ``postgres://`` mean psycopg 3 (the driver the project ships)."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def make_engine(url: str, sqlite_synchronous: str = "NORMAL") -> Engine:
    url = engine_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={sqlite_synchronous}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


class Store:
    """The engine plus the one worker thread every query runs on."""

    def __init__(self, url: str, sqlite_synchronous: str = "NORMAL") -> None:
        self.url = url
        self.engine = make_engine(url, sqlite_synchronous)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cogleague-db")
        self._pending_logs: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        self._flushing: asyncio.Task[None] | None = None

    def create_schema(self) -> None:
        metadata.create_all(self.engine)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        self.engine.dispose()

    # -- running work ----------------------------------------------------------------------
    def tx_sync(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(conn, *args)` in one transaction (commit on return, rollback on raise)."""
        with self.engine.begin() as conn:
            return fn(conn, *args)

    async def tx(self, fn: Callable[..., T], *args: Any) -> T:
        """`tx_sync` on the database thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self.tx_sync, fn, *args)

    # -- the episode log (group commit) ----------------------------------------------------
    async def append_log(self, table_id: str, idx: int, entry: dict[str, Any],
                         events: list[dict[str, Any]]) -> None:
        """Durably append one log entry; returns once it is committed."""
        row = {"table_id": table_id, "idx": idx, "entry": jsonio.dumps(entry),
               "events": jsonio.dumps(events)}
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending_logs.append((row, fut))
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self._flush_logs())
        await fut

    async def _flush_logs(self) -> None:
        while self._pending_logs:
            batch, self._pending_logs = self._pending_logs, []
            try:
                await self.tx(_insert_rows, [row for row, _ in batch])
            except Exception as exc:  # every waiter learns its rows were not stored
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            for _, fut in batch:
                if not fut.done():
                    fut.set_result(None)


def _insert_rows(conn: Connection, rows: Sequence[dict[str, Any]]) -> None:
    conn.execute(insert(log_entries), list(rows))


# -- small queries every module shares ------------------------------------------------------
def now() -> float:
    return time.time()


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def get_meta(conn: Connection, key: str) -> str | None:
    return conn.execute(select(meta.c.value).where(meta.c.key == key)).scalar_one_or_none()


def set_meta(conn: Connection, key: str, value: str) -> None:
    if get_meta(conn, key) is None:
        conn.execute(insert(meta).values(key=key, value=value))
    else:
        conn.execute(meta.update().where(meta.c.key == key).values(value=value))


def table_row(conn: Connection, table_id: str) -> dict[str, Any] | None:
    row = conn.execute(select(tables).where(tables.c.id == table_id)).mappings().first()
    return dict(row) if row is not None else None


def seat_rows(conn: Connection, table_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(select(seats).where(seats.c.table_id == table_id)
                        .order_by(seats.c.seat)).mappings().all()
    return [dict(r) for r in rows]


def log_rows(conn: Connection, table_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(select(log_entries.c.entry, log_entries.c.events)
                        .where(log_entries.c.table_id == table_id)
                        .order_by(log_entries.c.idx)).all()
    return [{"entry": json.loads(r.entry), "events": json.loads(r.events)} for r in rows]
