"""SQLite serves one process: a second `cogleague serve` on the same file is refused.

Leases and cross-process notices need PostgreSQL; on SQLite two processes would each resume
and run the same tables. The first process holds an exclusive `flock` on ``<file>.lock``
(released by the kernel when it exits, even on SIGKILL); the second gets a clear error.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import weakref
from pathlib import Path
from typing import IO
from urllib.parse import unquote, urlsplit

from sqlalchemy.engine import make_url


class DatabaseInUse(RuntimeError):
    pass


_HELD: weakref.WeakSet[IO[str]] = weakref.WeakSet()
"""The lock files this process holds open."""


def _drop_in_child() -> None:
    """A forked child (a league worker) closes its copies of its parent's lock files: the lock
    then ends with the parent, not with whichever child exits last (the parent's lock stays,
    as `flock` holds while any copy is open)."""
    for handle in list(_HELD):
        with contextlib.suppress(OSError):
            handle.close()
    _HELD.clear()


os.register_at_fork(after_in_child=_drop_in_child)


def sqlite_file(db_url: str) -> Path | None:
    """The database file of an SQLite URL (None: another backend, or in memory).

    With ``?uri=true`` SQLAlchemy hands the database part to SQLite as a URI
    (``sqlite:///file:/path/x.db?uri=true``): its file is the URI's path, so every spelling of
    one file names the same file (and the same lock)."""
    url = make_url(db_url)
    if not url.drivername.startswith("sqlite") or url.database in (None, "", ":memory:"):
        return None
    name = url.database
    if str(url.query.get("uri", "")).lower() in ("true", "1", "yes", "on") \
            and name.startswith("file:"):
        if url.query.get("mode") == "memory":
            return None
        parts = urlsplit(name)
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"{db_url}: an SQLite URI names a local file (file:/path)")
        name = unquote(parts.path)
        if name in ("", ":memory:"):
            return None
    return Path(name).resolve()


def lock(db_url: str) -> IO[str] | None:
    """Hold the database's process lock (keep the returned file open), or raise
    `DatabaseInUse` naming the process that holds it."""
    path = sqlite_file(db_url)
    if path is None:
        return None
    lock_path = path.with_name(path.name + ".lock")
    handle = lock_path.open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise DatabaseInUse(
            f"the SQLite database {path} is already served by process {holder}: SQLite serves "
            "one process per file. Stop that process, use another file, or run several "
            "processes on one PostgreSQL database (--db postgresql://…, docs/deploy.md)"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    _HELD.add(handle)
    return handle
