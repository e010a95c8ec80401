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
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
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
    inspect,
    select,
    text,
)
from sqlalchemy.engine import Engine

from cogleague.core import jsonio
from cogleague.server import logbatch
from cogleague.server.dbretry import Outage, Unavailable, backoff, transient

T = TypeVar("T")

metadata = MetaData()

accounts = Table(
    "accounts", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("key_digest", String(64), nullable=False, unique=True),
    Column("role", String(16), nullable=False),  # player | operator | house
    Column("created_at", Float, nullable=False),
    Column("password", String(200), nullable=True),  # passwords.py; None: API key only
)

web_sessions = Table(  # a person signed in from the browser (server/people.py)
    "web_sessions", metadata,
    Column("token_digest", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)

sign_in_tries = Table(  # a name's recent browser sign-in tries (server/sign_in_guard.py)
    "sign_in_tries", metadata,
    Column("name", String(64), primary_key=True),
    Column("tries", Text, nullable=False),  # JSON list of the tries' times (Unix seconds)
    Column("last_at", Float, nullable=False, index=True),
)

sign_up_tries = Table(  # a client address's recent self sign-ups (server/people.py)
    "sign_up_tries", metadata,
    Column("name", String(64), primary_key=True),  # the client's address
    Column("tries", Text, nullable=False),
    Column("last_at", Float, nullable=False, index=True),
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

OPEN, RUNNING, FINISHED, ABORTED = "open", "running", "finished", "aborted"
"""A table's `state` (protocol.md §2): open → running → finished | aborted."""

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
    # The lease (leases.py): which process runs the table now, where seats reach it, and
    # until when (wall-clock seconds) the lease holds unless renewed.
    Column("owner", String(40), nullable=True),
    Column("owner_url", String(200), nullable=True),
    Column("lease_until", Float, nullable=True),
)

seats = Table(
    "seats", metadata,
    Column("table_id", String(40), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=True),  # None: filler
    Column("kind", String(16), nullable=False),  # remote | scripted | llm
    Column("policy_name", String(200), nullable=False),
    Column("baseline", String(420), nullable=True),  # a baseline, or policy:PATH of a file
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
    Column("elapsed_ms", BigInteger, nullable=True),  # play time when this step was logged
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
    # a host that does not answer at all fails the connect in seconds (the retry loop waits)
    return create_engine(url, pool_pre_ping=True, connect_args={"connect_timeout": 5})


FOREVER = math.inf
"""`Store.tx(..., wait_s=FOREVER)`: a table's own writes wait for the database however long."""


class Store:
    """The engine plus the one worker thread every query runs on."""

    def __init__(self, url: str, sqlite_synchronous: str = "NORMAL") -> None:
        self.url = url
        self.engine = make_engine(url, sqlite_synchronous)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cogleague-db")
        self._pending_logs: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        self._flushing: asyncio.Task[None] | None = None
        self.is_postgres = self.engine.dialect.name == "postgresql"
        self.node_id: str | None = None
        """This process's lease owner id (set by `create_app`); log appends are fenced by it."""
        self._log_conn: Any = None
        """The DB-API connection group commits use (database thread only; see `_append`)."""
        self.outage = Outage()
        self.request_wait_s = 5.0
        """How long a request's transaction waits for an unavailable database (then 503)."""

    def create_schema(self) -> None:
        metadata.create_all(self.engine)
        add_missing_columns(self.engine)
        widen_columns(self.engine)

    def close(self) -> None:
        self._executor.submit(self._drop_log_conn)
        self._executor.shutdown(wait=True)
        self.engine.dispose()

    def notify(self, payload: str) -> Callable[[Connection], None]:
        """A step for `tx` that notifies other processes (nothing on SQLite)."""
        def run(conn: Connection) -> None:
            if self.is_postgres:
                notify(conn, payload)
        return run

    # -- running work ----------------------------------------------------------------------
    def tx_sync(self, fn: Callable[..., T], *args: Any) -> T:
        """Run `fn(conn, *args)` in one transaction (commit on return, rollback on raise)."""
        with self.engine.begin() as conn:
            return fn(conn, *args)

    async def tx(self, fn: Callable[..., T], *args: Any, wait_s: float | None = None) -> T:
        return await self.call(self.tx_sync, fn, *args, wait_s=wait_s)

    async def call(self, fn: Callable[..., T], *args: Any, wait_s: float | None = None) -> T:
        """`fn(*args)` on the database thread (`tx` wraps it in a transaction), tried again
        with backoff while the database is unavailable (`dbretry.transient`) for up to
        `wait_s` seconds (default
        `request_wait_s`; `FOREVER` for a table's own writes), then `Unavailable`. A retried
        transaction was rolled back, unless the connection died during its commit: the
        writes that can meet that (log rows; a table's create, join, start, end, abort) check
        for their own earlier commit."""
        loop = asyncio.get_running_loop()
        limit = self.request_wait_s if wait_s is None else wait_s
        started = time.monotonic()
        attempt = 0
        while True:
            try:
                result = await loop.run_in_executor(self._executor, fn, *args)
            except Exception as exc:
                if not transient(exc):
                    raise
                self.outage.failed(exc, getattr(args[0] if args else fn, "__name__", "a query"))
                if time.monotonic() - started >= limit:
                    raise Unavailable(f"the database is unavailable: {type(exc).__name__}"
                                      ) from exc
                await asyncio.sleep(backoff(attempt))
                attempt += 1
                continue
            self.outage.recovered()
            return result

    # -- the episode log (group commit) ----------------------------------------------------
    async def append_log(self, table_id: str, idx: int, entry: dict[str, Any],
                         events: list[dict[str, Any]], elapsed_ms: int | None = None) -> None:
        """Durably append one log entry; returns once it is committed. Raises `LeaseLost`
        when this process no longer runs the table (another took it over, or it ended)."""
        row = {"table_id": table_id, "idx": idx, "entry": jsonio.dumps(entry),
               "events": jsonio.dumps(events), "elapsed_ms": elapsed_ms}
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending_logs.append((row, fut))
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.create_task(self._flush_logs())
        await fut

    async def _flush_logs(self) -> None:
        while self._pending_logs:
            batch, self._pending_logs = self._pending_logs, []
            attempt = 0
            while True:  # a lost connection: the same rows again, until they are stored
                try:
                    refused = await self._append_async([row for row, _ in batch], attempt > 0)
                except Exception as exc:
                    if transient(exc):
                        self.outage.failed(exc, "log append")
                        await asyncio.sleep(backoff(attempt))
                        attempt += 1
                        continue
                    # table by table: one table's bad row fails only itself
                    await logbatch.isolate(batch, exc,
                                           partial(self._append_async, again=attempt > 0),
                                           LeaseLost)
                    refused = None
                break
            if refused is None:
                continue
            self.outage.recovered()
            logbatch.deliver(batch, refused, LeaseLost)

    async def _append_async(self, rows: list[dict[str, Any]], again: bool = False) -> set[str]:
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._append,
                                                                rows, again)

    def _append(self, rows: list[dict[str, Any]], again: bool = False) -> set[str]:
        """One group commit, on the database thread: `_append_rows` through one DB-API
        connection kept for it. A group commit runs once per step
        of every running table, and SQLAlchemy's per-transaction work (pool checkout, reset,
        statement compilation and result set-up) cost several times the SQLite insert itself;
        the statements here are fixed, so the driver gets them as text. `again`: the rows were
        tried before and that commit's outcome is unknown, so rows already stored are kept."""
        conn = self._log_conn
        if conn is None:
            conn = self._log_conn = self.engine.raw_connection()
        try:
            cur = conn.cursor()
            try:
                refused = _append_rows(cur, rows, self.node_id, self.is_postgres, again)
            finally:
                cur.close()
            conn.commit()
        except BaseException:
            self._drop_log_conn(rollback=True)
            raise
        return refused

    def _drop_log_conn(self, rollback: bool = False) -> None:
        """Give the group-commit connection back (after a failure: rolled back, or discarded
        when even that fails, so the next group commit starts on a fresh one)."""
        conn, self._log_conn = self._log_conn, None
        if conn is None:
            return
        try:
            if rollback:
                conn.rollback()
            conn.close()
        except Exception:
            conn.invalidate()


_LOG_COLUMNS = ("table_id", "idx", "entry", "events", "elapsed_ms")
_INSERT_SQLITE = (f"INSERT INTO log_entries ({', '.join(_LOG_COLUMNS)}) "
                  f"VALUES ({', '.join('?' for _ in _LOG_COLUMNS)})")
_INSERT_PG = (f"INSERT INTO log_entries ({', '.join(_LOG_COLUMNS)}) "
              f"VALUES ({', '.join('%s' for _ in _LOG_COLUMNS)})")
_MINE_PG = ("SELECT id FROM tables WHERE id = ANY(%s) AND state = 'running'{owner} "
            "FOR SHARE")


_AGAIN_SQLITE = _INSERT_SQLITE.replace("INSERT INTO", "INSERT OR IGNORE INTO")
_AGAIN_PG = _INSERT_PG + " ON CONFLICT (table_id, idx) DO NOTHING"


def _append_rows(cur: Any, rows: Sequence[dict[str, Any]], node_id: str | None,
                 postgres: bool, again: bool = False) -> set[str]:
    """Insert the rows of the tables this process still runs; return the refused tables.

    The owner check locks each table row (``FOR SHARE``, PostgreSQL) until the commit, so a
    take-over (an UPDATE of the same row) waits for it and then reads every row written. On
    SQLite there is one process per file (`sqlite_lock.py`), whose own `live` tables are the
    truth: the rows go in without the check (one query less per group commit)."""
    if not postgres:
        cur.executemany(_AGAIN_SQLITE if again else _INSERT_SQLITE,
                        [tuple(r[c] for c in _LOG_COLUMNS) for r in rows])
        return set()
    ids = sorted({r["table_id"] for r in rows})
    if node_id is None:
        cur.execute(_MINE_PG.format(owner=""), (ids,))
    else:
        cur.execute(_MINE_PG.format(owner=" AND owner = %s"), (ids, node_id))
    mine = {r[0] for r in cur.fetchall()}
    kept = [tuple(r[c] for c in _LOG_COLUMNS) for r in rows if r["table_id"] in mine]
    if kept:
        cur.executemany(_AGAIN_PG if again else _INSERT_PG, kept)
        for part in _notice_parts("log:" + ",".join(sorted(mine))):
            cur.execute("SELECT pg_notify(%s, %s)", (NOTIFY_CHANNEL, part))
    return set(ids) - mine


class LeaseLost(RuntimeError):
    """This process may no longer write a table's log: its lease passed to another process,
    or the table ended (an operator's abort on another process)."""

    def __init__(self, table_id: str) -> None:
        super().__init__(f"table {table_id}: this process no longer holds its lease")
        self.table_id = table_id


NOTIFY_CHANNEL = "cogleague"
"""PostgreSQL `LISTEN/NOTIFY` channel: ``log:<id>,<id>…`` after log rows commit,
``state:<id>`` after a table changes state, ``lobby:<id>`` after a create, join or leave,
``seat:<id>:<seat>`` after a seat is taken back with a new token, ``keys:<account id>``
after a new API key (notify.py)."""


def notify(conn: Connection, payload: str) -> None:
    """Tell every process (PostgreSQL: at this transaction's commit). Payloads stay under
    PostgreSQL's 8,000-byte limit: long id lists are split."""
    for part in _notice_parts(payload):
        conn.execute(text("SELECT pg_notify(:c, :p)"), {"c": NOTIFY_CHANNEL, "p": part})


def _notice_parts(payload: str) -> list[str]:
    """`payload` as one notice, or several when its id list is too long for one."""
    kind, _, rest = payload.partition(":")
    parts = [rest] if len(rest) < 7000 else _chunks(rest.split(","), 7000)
    return [f"{kind}:{part}" for part in parts]


def _chunks(ids: list[str], limit: int) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    for i in ids:
        if sum(len(c) + 1 for c in cur) + len(i) > limit:
            out.append(",".join(cur))
            cur = []
        cur.append(i)
    if cur:
        out.append(",".join(cur))
    return out


def add_missing_columns(engine: Engine) -> None:
    """Columns added after a database was created (`create_all` adds only tables): each
    nullable, so ``ALTER TABLE … ADD COLUMN`` is enough on SQLite and PostgreSQL."""
    inspector = inspect(engine)
    for table in (tables, log_entries, accounts):
        have = {c["name"] for c in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name not in have and column.nullable:
                kind = column.type.compile(engine.dialect)
                with engine.begin() as conn:
                    conn.execute(text(f"ALTER TABLE {table.name} ADD COLUMN {column.name} {kind}"))


def widen_columns(engine: Engine) -> None:
    """Text columns made longer after a database was created: PostgreSQL enforces a
    VARCHAR's length, so an older, narrower column is altered to the schema's (SQLite does
    not enforce lengths and needs nothing)."""
    if engine.dialect.name != "postgresql":
        return
    inspector = inspect(engine)
    for table in (tables, log_entries, accounts, seats):
        have = {c["name"]: c["type"] for c in inspector.get_columns(table.name)}
        for column in table.columns:
            want = getattr(column.type, "length", None)
            got = getattr(have.get(column.name), "length", None)
            if want is not None and got is not None and got < want:
                kind = column.type.compile(engine.dialect)
                with engine.begin() as conn:
                    conn.execute(text(f"ALTER TABLE {table.name} ALTER COLUMN {column.name} "
                                      f"TYPE {kind}"))


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


def log_rows(conn: Connection, table_id: str, after: int = -1) -> list[dict[str, Any]]:
    """The table's log entries with `idx` > `after`, in order."""
    rows = conn.execute(select(log_entries.c.idx, log_entries.c.entry, log_entries.c.events,
                               log_entries.c.elapsed_ms)
                        .where(log_entries.c.table_id == table_id, log_entries.c.idx > after)
                        .order_by(log_entries.c.idx)).all()
    return [{"idx": r.idx, "entry": json.loads(r.entry), "events": json.loads(r.events),
             "elapsed_ms": r.elapsed_ms} for r in rows]
