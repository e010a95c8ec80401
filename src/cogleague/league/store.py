"""Where league and server episodes live: SQLAlchemy 2, SQLite by default, PostgreSQL by URL.

The table server records each finished table with `record_episode` into the same database the
league runner writes, so one set of standings covers both. Tables are prefixed ``league_``:

- ``league_episodes``: one row per episode id — identity (league, game, variant, seed,
  line-up), ``status`` (``ok`` | ``failed``), the results document as canonical JSON, small
  per-round series for plots, the error of a failed run, the number of attempts;
- ``league_seats``: one row per seat of a finished episode (policy, duplicate copy, score);
- ``league_policies``: the league's policy book (author, kind, model) for tables and reports;
- ``league_options``: each game and variant's overrides as the league first ran them (ids hash
  no options: `runner.check_options` refuses a run with others);
- ``league_facts``: the league's seed, seats and policy definitions as first run (the same
  refusal, `identity.py`).

Writes are idempotent: recording a finished id again changes nothing; a failed id is replaced
when it later succeeds (its attempt count is kept).

SQLite runs in WAL mode with ``synchronous=NORMAL``: a commit is not fsynced (the WAL is, at each
checkpoint), so a killed process loses nothing committed and only an OS crash or a power cut
can roll back the last commits. A league run is resumable by construction (those episodes are
simply played again), and an fsync per chunk was a fifth of the driver's store time.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import threading
import traceback
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from itertools import repeat
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    create_engine,
    delete,
    event,
    insert,
    inspect,
    select,
)
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from cogleague.core import jsonio
from cogleague.core.errors import ConfigError
from cogleague.league.episodes import (
    EPISODE_FIELDS,
    EPISODE_STATUSES,
    ID_HEX_CHARS,
    EncodedRecord,
    EpisodeRecord,
    episode_id,
    mark_duplicates,
)
from cogleague.league.policies import read_book_entry

STATUS_OK, STATUS_FAILED, STATUS_INFRA = EPISODE_STATUSES
SOURCE_LEAGUE = "league"
SOURCE_SERVER = "server"
SERVER_LEAGUE = "server"
"""The league name given to server tables that do not name one."""


class Base(DeclarativeBase):
    pass


class EpisodeRow(Base):
    __tablename__ = "league_episodes"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    league: Mapped[str] = mapped_column(String(128), index=True)
    source: Mapped[str] = mapped_column(String(16), default=SOURCE_LEAGUE)
    game: Mapped[str] = mapped_column(String(32), index=True)
    variant: Mapped[str | None] = mapped_column(String(64), nullable=True)
    seed: Mapped[int] = mapped_column(BigInteger)
    lineup: Mapped[str] = mapped_column(Text)  # JSON list of policy names by seat
    status: Mapped[str] = mapped_column(String(16), index=True)
    reason: Mapped[str | None] = mapped_column(String(64), nullable=True)
    results: Mapped[str | None] = mapped_column(Text, nullable=True)
    series: Mapped[str | None] = mapped_column(Text, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    schedule_index: Mapped[int] = mapped_column(Integer, default=0)
    duration_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SeatRow(Base):
    __tablename__ = "league_seats"

    episode_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("league_episodes.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    policy: Mapped[str] = mapped_column(String(128))  # no index: no query selects by it
    copy: Mapped[int] = mapped_column(Integer, default=0)
    score: Mapped[float] = mapped_column(Float)


class PolicyRow(Base):
    __tablename__ = "league_policies"

    league: Mapped[str] = mapped_column(String(128), primary_key=True)
    name: Mapped[str] = mapped_column(String(128), primary_key=True)
    author: Mapped[str] = mapped_column(String(128), default="")
    kind: Mapped[str] = mapped_column(String(16))
    ref: Mapped[str] = mapped_column(Text)
    model: Mapped[str | None] = mapped_column(String(128), nullable=True)


class OptionsRow(Base):
    """The options each game and variant of a league was first run with: episode ids hash no
    options, so a run with other options would take the stored episodes for its own."""

    __tablename__ = "league_options"

    league: Mapped[str] = mapped_column(String(128), primary_key=True)
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(64), primary_key=True)  # "": the default
    options: Mapped[str] = mapped_column(Text)  # canonical JSON of the overrides


class FactRow(Base):
    """What else a league's stored episodes were first played with — its seed, each game and
    variant's seats, each policy's definition per game (`identity.py`): ids hash none of
    them but the seed, and the standings rank every stored episode of a league."""

    __tablename__ = "league_facts"

    league: Mapped[str] = mapped_column(String(128), primary_key=True)
    key: Mapped[str] = mapped_column(String(256), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


_ENGINES: dict[str, Engine] = {}
_ENGINES_LOCK = threading.Lock()
_INHERITED: list[dict[str, Engine]] = []


def _forget_inherited_engines() -> None:
    """In a forked child: start with no engine. The parent's pooled connections stay the
    parent's: the child never uses, closes or frees them (freeing a SQLite connection closes
    its handle, which SQLite forbids across a fork), so they are kept until the child exits.
    The parent keeps its engines, and a pool's driver need not close them before forking."""
    global _ENGINES, _ENGINES_LOCK
    _INHERITED.append(_ENGINES)
    _ENGINES, _ENGINES_LOCK = {}, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited_engines)


def sqlite_url(path: str | Path) -> str:
    return f"sqlite:///{Path(path).resolve()}"


PAGE_BYTES = 16_384
"""The page size of a new SQLite file (an existing file keeps its own): an episode row is a
couple of kilobytes of JSON, so 4 KiB pages held one row each and wasted a third of the file."""
CACHE_KIB = 4_096
"""The page cache of each connection: a 10,000-episode chunk's index updates stay in memory
(16 MiB wrote the batch league no faster, and a run's peak memory grew with its first 8,000
episodes' pages: `benchmarks/league_memory.py`)."""


def _on_sqlite_connect(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA page_size={PAGE_BYTES}")  # before anything is written; else a no-op
    cur.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    cur.execute("PRAGMA journal_mode=WAL")  # readers (web, standings) never block the writer
    cur.execute("PRAGMA synchronous=NORMAL")  # WAL: no fsync per commit (see the module doc)
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def engine_for(engine_or_url: Engine | str) -> Engine:
    """An engine with the league tables created. URLs are cached: one pool per database."""
    if isinstance(engine_or_url, Engine):
        _create_tables(engine_or_url)
        return engine_or_url
    url = str(engine_or_url)
    with _ENGINES_LOCK:
        engine = _ENGINES.get(url)
        if engine is None:
            try:
                engine = create_engine(url, future=True)
            except Exception as exc:  # bad scheme or missing driver: a user error
                raise ConfigError("store", f"store must be a SQLAlchemy URL such as "
                                           f"sqlite:///league.db ({exc})") from exc
            if engine.dialect.name == "sqlite":
                event.listen(engine, "connect", _on_sqlite_connect)
                from cogleague.server.sqlite_lock import sqlite_file

                file = sqlite_file(url)  # a ``file:`` URI's path, not the URI as a path
                if file is not None:
                    file.parent.mkdir(parents=True, exist_ok=True)
            _create_tables(engine, widen=True)
            _ENGINES[url] = engine
    return engine


CREATE_LOCK = 0x636F676C65616775
"""The PostgreSQL advisory lock (an arbitrary 64-bit key) creators of the league tables take
in turn."""
CREATE_TRIES = 5
"""SQLite: creations tried while another connection creates the same tables."""


def _create_tables(engine: Engine, widen: bool = False) -> None:
    """Create the tables a store lacks (and `widen` an older store's status column); a store
    opened read-only (``?mode=ro``) is read as it is, so a store made before a table was
    added can still be ranked (`stored_facts`).

    Creators can meet: a season server's database thread records its first finished table
    while a standings request refits from the same database on a thread of its own (and
    processes share databases). Each checks which tables are missing, then creates them; two
    at once both created, and the second failed (PostgreSQL: a unique violation in its
    catalog; SQLite: "already exists"). On PostgreSQL they take turns on an advisory lock, in
    one transaction, so each sees what the one before committed; on SQLite one that lost the
    race checks again."""
    for attempt in range(CREATE_TRIES):
        try:
            with engine.begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({CREATE_LOCK})")
                Base.metadata.create_all(conn)
                if widen:
                    _widen_status(conn)
            return
        except OperationalError as exc:
            if "readonly" in str(exc):
                return
            if "already exists" not in str(exc) or attempt == CREATE_TRIES - 1:
                raise


def _widen_status(conn: Any) -> None:
    """Stores made before ``infra_error`` had an 8-character status column (PostgreSQL
    enforces it; SQLite does not): widen it in place, idempotently."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("ALTER TABLE league_episodes ALTER COLUMN status TYPE VARCHAR(16)")


def dispose_all() -> None:
    """Close every cached pool (tests)."""
    with _ENGINES_LOCK:
        for engine in _ENGINES.values():
            engine.dispose()
        _ENGINES.clear()


# -- writing ---------------------------------------------------------------------------------
_EPISODE_COLUMNS = ("id", "league", "source", "game", "variant", "seed", "lineup", "status",
                    "reason", "results", "series", "error", "attempts", "schedule_index",
                    "duration_s", "finished_at")
_SEAT_COLUMNS = ("episode_id", "seat", "policy", "copy", "score")
_MARKS = {"qmark": "?", "format": "%s", "pyformat": "%s"}
"""The DB-API placeholder of each positional parameter style (SQLite: ``qmark``, psycopg:
``pyformat``)."""
assert len(_EPISODE_COLUMNS) == EPISODE_FIELDS + 1  # an encoded record's row is a slice


@functools.lru_cache(maxsize=1024)
def _copies(policies: tuple[str, ...]) -> list[int]:
    """Each seat's duplicate copy (a league has few line-ups and stores thousands of rows)."""
    return mark_duplicates(policies)[1]


def _seat_rows(records: Iterable[EncodedRecord]) -> list[tuple[Any, ...]]:
    """The seat rows of the ``ok`` records, in `_SEAT_COLUMNS` order."""
    seats: list[tuple[Any, ...]] = []
    for record in records:
        if record.status == STATUS_OK:
            k = len(record.policies)  # a score per seat, or ValueError
            seats += zip(repeat(record.id, k), range(k), record.policies,
                         _copies(record.policies), record.scores, strict=True)
    return seats


def _insert_many(conn: Any, table: str, columns: Sequence[str],
                 rows: Sequence[tuple[Any, ...]]) -> None:
    """One ``executemany`` of plain tuples straight to the driver: SQLAlchemy's compiled
    insert builds and processes a dict per row, which for a chunk of thousands of episodes
    cost the driver more than the database did."""
    mark = _MARKS.get(conn.dialect.paramstyle)
    if mark is None:  # a driver with named parameters: SQLAlchemy's own insert
        target = Base.metadata.tables[table]
        conn.execute(insert(target), [dict(zip(columns, row, strict=True)) for row in rows])
        return
    sql = (f"INSERT INTO {table} ({', '.join(columns)}) "
           f"VALUES ({', '.join([mark] * len(columns))})")
    conn.exec_driver_sql(sql, rows)


def _finished_at(conn: Any) -> Any:
    """The current time as `_insert_many` hands it over: in the driver's own form when rows go
    straight to the driver (SQLite: SQLAlchemy's text form), else a datetime."""
    now = datetime.now(UTC)
    if conn.dialect.paramstyle not in _MARKS:
        return now
    kind = EpisodeRow.__table__.c.finished_at.type.dialect_impl(conn.dialect)
    process = kind.bind_processor(conn.dialect)
    return now if process is None else process(now)


_IDS_PER_QUERY = 500  # bound on the parameters of one ``IN (…)`` (SQLite allows 32,766)


def _stored(conn: Any, ids: Sequence[str]) -> dict[str, tuple[str, int]]:
    """(status, attempts) of those of `ids` the store already holds: a plain ``IN`` query per
    `_IDS_PER_QUERY` ids, straight to the driver where its parameters are positional
    (SQLAlchemy's ``in_`` builds a bound parameter per id, which cost more than the query)."""
    mark = _MARKS.get(conn.dialect.paramstyle)
    stored: dict[str, tuple[str, int]] = {}
    for i in range(0, len(ids), _IDS_PER_QUERY):
        part = ids[i:i + _IDS_PER_QUERY]
        if mark is None:
            query = select(EpisodeRow.id, EpisodeRow.status, EpisodeRow.attempts).where(
                EpisodeRow.id.in_(part))
            found = conn.execute(query)
        else:
            found = conn.exec_driver_sql(
                f"SELECT id, status, attempts FROM {EpisodeRow.__tablename__} "
                f"WHERE id IN ({', '.join([mark] * len(part))})", tuple(part))
        stored.update({eid: (status, attempts) for eid, status, attempts in found})
    return stored


@contextlib.contextmanager
def _released_on_interrupt() -> Iterator[None]:
    """Ctrl-C (or another exception that is no `Exception`) in the middle of a write:
    SQLAlchemy closes the connection, but SQLite keeps its handle, with the write lock, until
    the interrupted statement is finalized, and the traceback's frames keep that cursor alive:
    the next write (an interrupted run stores what came back) waited out the 30 s busy timeout
    and failed "database is locked". The frames' locals are cleared here (the traceback still
    says where it stopped), which frees the cursor, the handle and the lock at once."""
    try:
        yield
    except Exception:
        raise
    except BaseException as exc:
        traceback.clear_frames(exc.__traceback__)
        raise


def save_records(engine_or_url: Engine | str,
                 records: Iterable[EpisodeRecord | EncodedRecord]) -> int:
    """Write outcomes in one transaction; returns how many rows changed.

    A finished id is never overwritten; a failed id is replaced by a newer outcome, and its
    attempts add up (an `EpisodeRecord` passed in has its `attempts` updated). One query reads
    what the batch's ids already hold and two bulk inserts write it: the driver is the only
    writer, and with a process pool its time per chunk is time taken from the workers. Workers
    hand in `EncodedRecord`s, whose JSON is already encoded and whose leading fields are the
    episode row; an `EpisodeRecord` is encoded here, the same way."""
    given = list(records)
    if not given:
        return 0
    batch = [r if isinstance(r, EncodedRecord) else r.encoded() for r in given]
    engine = engine_for(engine_or_url)
    with _released_on_interrupt(), engine.begin() as conn:
        now = (_finished_at(conn),)
        ids = list(dict.fromkeys(r.id for r in batch))
        stored = _stored(conn, ids)
        if not stored and len(ids) == len(batch):  # a league's usual chunk: all new
            rows, changed = batch, len(batch)
        else:
            rows, changed = _merge(conn, given, batch, stored)
        if rows:
            _insert_many(conn, EpisodeRow.__tablename__, _EPISODE_COLUMNS,
                         [r[:EPISODE_FIELDS] + now for r in rows])
            seats = _seat_rows(rows)
            if seats:
                _insert_many(conn, SeatRow.__tablename__, _SEAT_COLUMNS, seats)
    return changed


def _merge(conn: Any, given: Sequence[EpisodeRecord | EncodedRecord],
           batch: Sequence[EncodedRecord], stored: Mapping[str, tuple[str, int]]
           ) -> tuple[list[EncodedRecord], int]:
    """What of `batch` to write, in order (a later outcome of the same id sees the earlier
    one; a finished id is kept, a failed one replaced and its attempts added up), and how many
    outcomes changed a row; the stored rows it replaces are deleted."""
    rows: dict[str, EncodedRecord] = {}
    replaced: list[str] = []
    changed = 0
    for original, record in zip(given, batch, strict=True):
        earlier = rows.get(record.id)
        before = (earlier.status, earlier.attempts) if earlier is not None else stored.get(
            record.id)
        if before is not None:
            if before[0] == STATUS_OK:
                continue
            record = record._replace(attempts=record.attempts + before[1])
            if isinstance(original, EpisodeRecord):
                original.attempts = record.attempts
            if earlier is None:
                replaced.append(record.id)
        rows[record.id] = record
        changed += 1
    for i in range(0, len(replaced), _IDS_PER_QUERY):
        gone = replaced[i:i + _IDS_PER_QUERY]
        conn.execute(delete(SeatRow).where(SeatRow.episode_id.in_(gone)))
        conn.execute(delete(EpisodeRow).where(EpisodeRow.id.in_(gone)))
    return list(rows.values()), changed


def _check_results(results: Mapping[str, Any], n: int) -> None:
    scores = results.get("scores")
    if not isinstance(scores, list) or len(scores) != n:
        raise ValueError(f"results.scores must list one number per seat ({n} seats)")
    for s in scores:
        if isinstance(s, bool) or not isinstance(s, int | float):
            raise ValueError(f"results.scores must be numbers (got {s!r})")


def episode_id_for_table(table_id: str, source: str = SOURCE_SERVER) -> str:
    """The episode id `record_episode` gives a server table (one per table, so recording it
    again changes nothing)."""
    return hashlib.sha256(jsonio.dumps({"source": source, "table": str(table_id)})
                          .encode()).hexdigest()[:ID_HEX_CHARS]


def record_episode(engine_or_url: Engine | str, *, game: str, variant: str | None, seed: int,
                   policy_names: Sequence[str], results: Mapping[str, Any] | None,
                   source: str = SOURCE_SERVER, league: str | None = None,
                   table_id: str | None = None, status: str = STATUS_OK,
                   error: str | None = None, series: Mapping[str, Any] | None = None,
                   duration_s: float | None = None) -> str:
    """Record one finished table so it counts in the standings. Returns the episode id.

    The server calls this when a table ends: `policy_names` by seat (the spectator-side names
    the standings rank), `results` the game's results document (``scores`` one per seat).
    `league` defaults to ``"server"``. Pass the server's own `table_id` so that two tables with
    the same seed and line-up stay two episodes (without it the id is derived from league, game,
    variant, seed and line-up, like a league episode). Recording the same table twice is a
    no-op, so retries are safe. `status="failed"` with an `error` records a
    table that broke for an infrastructure reason (shown, never ranked).
    """
    if status not in (STATUS_OK, STATUS_FAILED, STATUS_INFRA):
        raise ValueError(f"status must be {STATUS_OK}, {STATUS_FAILED} or {STATUS_INFRA} "
                         f"(got {status!r})")
    names = list(policy_names)
    if status == STATUS_OK:
        if results is None:
            raise ValueError("results are required for a finished episode")
        _check_results(results, len(names))
    league_name = league or SERVER_LEAGUE
    if table_id is not None:
        eid = episode_id_for_table(table_id, source)
    else:
        eid = episode_id(league_name, game, variant, int(seed), mark_duplicates(names)[0])
    record = EpisodeRecord(
        id=eid, league=league_name, game=game, variant=variant, seed=int(seed), policies=names,
        status=status, results=None if results is None else dict(results),
        series=None if series is None else dict(series), error=error, source=source,
        duration_s=duration_s)
    save_records(engine_or_url, [record])
    return eid


def save_policies(engine_or_url: Engine | str, league: str,
                  policies: Iterable[Mapping[str, Any]]) -> None:
    """Write the league's policy book entries (name, author, kind, ref, model), replacing
    those of the same names. The entry of a policy no longer in the league file is kept: its
    stored episodes are still ranked, and its label with them."""
    given = list(policies)
    engine = engine_for(engine_or_url)
    with Session(engine) as session, session.begin():
        for old in session.scalars(select(PolicyRow).where(
                PolicyRow.league == league, PolicyRow.name.in_([p["name"] for p in given]))):
            session.delete(old)
        session.flush()
        session.add_all(_policy_row(league, p) for p in given)


def add_policies(engine_or_url: Engine | str, league: str,
                 policies: Iterable[Mapping[str, Any]]) -> None:
    """Add the league's book entries not yet there (a season's agent versions, as their tables
    are recorded); entries already there — an offline league's own book — are kept."""
    given = {p["name"]: p for p in policies}
    if not given:
        return
    with Session(engine_for(engine_or_url)) as session, session.begin():
        known = set(session.scalars(select(PolicyRow.name).where(
            PolicyRow.league == league, PolicyRow.name.in_(given))))
        session.add_all(_policy_row(league, p) for name, p in given.items()
                        if name not in known)


def _policy_row(league: str, entry: Mapping[str, Any]) -> PolicyRow:
    """One book entry (name, author, kind, ref, model) as its row."""
    return PolicyRow(league=league, name=entry["name"], author=entry.get("author", ""),
                     kind=entry["kind"], ref=entry["ref"], model=entry.get("model"))


def save_options(engine_or_url: Engine | str, league: str,
                 options: Mapping[tuple[str, str | None], str]) -> None:
    """Record the options of the league's games and variants not yet recorded (`OptionsRow`);
    recorded ones are kept."""
    known = stored_options(engine_or_url, league)
    with Session(engine_for(engine_or_url)) as session, session.begin():
        session.add_all(OptionsRow(league=league, game=game, variant=variant or "", options=text)
                        for (game, variant), text in options.items()
                        if (game, variant) not in known)


def save_facts(engine_or_url: Engine | str, league: str, facts: Iterable[Any]) -> None:
    """Record the league's facts (`identity.Fact`: key and value) not yet recorded; recorded
    ones are kept."""
    known = stored_facts(engine_or_url, league)
    with Session(engine_for(engine_or_url)) as session, session.begin():
        session.add_all(FactRow(league=league, key=f.key, value=f.value) for f in facts
                        if f.key not in known)


# -- reading ---------------------------------------------------------------------------------
def stored_options(engine_or_url: Engine | str,
                   league: str) -> dict[tuple[str, str | None], str]:
    """The options recorded for the league's games and variants (`save_options`)."""
    engine = engine_for(engine_or_url)
    if not inspect(engine).has_table(OptionsRow.__tablename__):  # an older store, read-only
        return {}
    with Session(engine) as session:
        rows = session.scalars(select(OptionsRow).where(OptionsRow.league == league))
        return {(r.game, r.variant or None): r.options for r in rows}


def stored_facts(engine_or_url: Engine | str, league: str) -> dict[str, str]:
    """The facts recorded for the league (`save_facts`), by key."""
    engine = engine_for(engine_or_url)
    if not inspect(engine).has_table(FactRow.__tablename__):  # an older store, read-only
        return {}
    with Session(engine) as session:
        rows = session.scalars(select(FactRow).where(FactRow.league == league))
        return {r.key: r.value for r in rows}


def finished_ids(engine_or_url: Engine | str, ids: Iterable[str] | None = None,
                 league: str | None = None, *, retry_infra: bool = False) -> set[str]:
    """Ids already finished (status ok, or infra_error unless `retry_infra`), optionally
    limited to a league."""
    engine = engine_for(engine_or_url)
    done_states = [STATUS_OK] if retry_infra else [STATUS_OK, STATUS_INFRA]
    query = select(EpisodeRow.id).where(EpisodeRow.status.in_(done_states))
    if league is not None:
        query = query.where(EpisodeRow.league == league)
    with Session(engine) as session:
        done = set(session.scalars(query))
    return done if ids is None else done & set(ids)


def _record_of(row: EpisodeRow) -> EpisodeRecord:
    return EpisodeRecord(
        id=row.id, league=row.league, game=row.game, variant=row.variant, seed=row.seed,
        policies=json.loads(row.lineup), status=row.status,
        results=None if row.results is None else json.loads(row.results),
        series=None if row.series is None else json.loads(row.series), error=row.error,
        source=row.source, duration_s=row.duration_s, attempts=row.attempts,
        index=row.schedule_index)


def load_episodes(engine_or_url: Engine | str, *, league: str | None = None,
                  leagues: Sequence[str] | None = None, game: str | None = None,
                  status: str | None = None) -> list[EpisodeRecord]:
    """Stored episodes in a deterministic order (game, variant, schedule index, id)."""
    engine = engine_for(engine_or_url)
    query = select(EpisodeRow)
    if league is not None:
        query = query.where(EpisodeRow.league == league)
    if leagues is not None:
        query = query.where(EpisodeRow.league.in_(list(leagues)))
    if game is not None:
        query = query.where(EpisodeRow.game == game)
    if status is not None:
        query = query.where(EpisodeRow.status == status)
    query = query.order_by(EpisodeRow.game, EpisodeRow.variant, EpisodeRow.league,
                           EpisodeRow.schedule_index, EpisodeRow.id)
    with Session(engine) as session:
        return [_record_of(row) for row in session.scalars(query)]


def load_policies(engine_or_url: Engine | str,
                  league: str | None = None) -> dict[str, dict[str, Any]]:
    """The policy book (of `league`, or every league's), each entry read as it is written now
    (`policies.read_book_entry`: an older store's is shown without a run first)."""
    engine = engine_for(engine_or_url)
    query = select(PolicyRow)
    if league is not None:
        query = query.where(PolicyRow.league == league)
    with Session(engine) as session:
        return {row.name: read_book_entry({"name": row.name, "author": row.author,
                                           "kind": row.kind, "ref": row.ref,
                                           "model": row.model})
                for row in session.scalars(query)}
