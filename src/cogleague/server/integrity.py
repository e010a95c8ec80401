"""The start-up check of the server's database: refuse one that is corrupt or that lost its
data, instead of answering health checks and then failing every request.

- SQLite: a file that does not exist is a first start (it is created). A file that exists
  must be a readable SQLite database (`PRAGMA quick_check`); one that is zero bytes or holds
  no cogleague tables (e.g. its write-ahead log was deleted before a checkpoint) is refused,
  unless `Settings.create_db` (``cogleague serve --create-db``) says to create the schema in it.
- PostgreSQL: a database without any cogleague table is a first start (created, as
  docs/deploy.md sets it up); one that has the tables but not the house account lost its data
  and is refused unless `create_db`.

A corrupt SQLite file is always refused: move it aside or restore a backup first.
"""

from __future__ import annotations

import sqlite3

from sqlalchemy import inspect, select

from cogleague.server.sqlite_lock import sqlite_file

MARK_TABLE = "accounts"
"""The table every cogleague server database has from its first start on."""


class DatabaseRefused(RuntimeError):
    """The database is not one to serve from; the message is the one line to print."""


def check_folder(url: str) -> None:
    """An SQLite file's folder must exist: the server makes the file, not its folders (a
    mistyped path would otherwise fail on the lock file, as a FileNotFoundError)."""
    path = sqlite_file(url)
    if path is not None and not path.parent.is_dir():
        raise DatabaseRefused(f"the folder {path.parent} of the SQLite database {path} does "
                              "not exist: make it first, or name a file in an existing folder")


def check_database(url: str, create: bool = False) -> str:
    """Raise `DatabaseRefused` for a database not to serve from; else say what was found
    (``new``, ``created-on-request`` or ``ok``)."""
    path = sqlite_file(url)
    if path is not None:
        if not path.exists():
            return "new"
        if path.stat().st_size == 0:
            if create:
                return "created-on-request"
            raise DatabaseRefused(f"the SQLite file {path} is empty (0 bytes): a server "
                                  "database has tables; pass --create-db to start a new one "
                                  "in it")
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as conn:
                check = conn.execute("PRAGMA quick_check(1)").fetchone()
                names = {r[0] for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'")}
                house = (conn.execute("SELECT count(*) FROM accounts WHERE role = 'house'")
                         .fetchone()[0] if MARK_TABLE in names else 0)
        except sqlite3.DatabaseError as exc:
            raise DatabaseRefused(f"the SQLite file {path} is not a readable database ({exc}); "
                                  "move it aside or restore a backup") from None
        if check is None or check[0] != "ok":
            raise DatabaseRefused(f"the SQLite file {path} is corrupt (quick_check: "
                                  f"{check[0] if check else 'no answer'}); move it aside or "
                                  "restore a backup")
        return _judge(MARK_TABLE in names, house, create, f"the SQLite file {path}")
    from cogleague.server.store import accounts, make_engine

    engine = make_engine(url)
    try:
        names = set(inspect(engine).get_table_names())
        house = 0
        if MARK_TABLE in names:
            with engine.connect() as conn:
                house = len(conn.execute(select(accounts.c.id).where(
                    accounts.c.role == "house")).all())
    finally:
        engine.dispose()
    if not names & {MARK_TABLE, "tables", "log_entries", "seats", "wallet_entries"}:
        return "new"
    return _judge(MARK_TABLE in names, house, create, "the database")


def _judge(has_schema: bool, house: int, create: bool, what: str) -> str:
    if has_schema and house:
        return "ok"
    if create:
        return "created-on-request"
    why = "has no cogleague tables" if not has_schema else "has no house account (its data is gone)"
    raise DatabaseRefused(f"{what} {why}; pass --create-db to start a new one in it")
