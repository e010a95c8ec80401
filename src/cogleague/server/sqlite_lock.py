"""SQLite serves one process: a second `cogleague serve` on the same file is refused.

Leases and cross-process notices need PostgreSQL; on SQLite two processes would each resume
and run the same tables. The first process holds an exclusive `flock` on ``<file>.lock`` (the
name it was given, resolved; it also holds the process id) and one on the database file itself,
read-only: that one is keyed by the file's identity (device and inode), so every name of one
file — a hard link in another folder too — is refused while one process holds it. A file not
made yet is covered once its server made it (`Held.cover`). The kernel releases both when the
process exits, even on SIGKILL; the second process gets a clear error.

The database file's own descriptor stays open until `close()`: closing any descriptor of a file
drops the POSIX locks SQLite holds on it in this process, so close only after the engine.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import weakref
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlsplit

from sqlalchemy.engine import make_url


class DatabaseInUse(RuntimeError):
    pass


_HELD: weakref.WeakSet[IO[Any]] = weakref.WeakSet()
"""The lock files (and database files) this process holds open."""


def _drop_in_child() -> None:
    """A forked child (a league worker) closes its copies of its parent's lock files: the lock
    then ends with the parent, not with whichever child exits last (the parent's lock stays,
    as `flock` holds while any copy is open)."""
    for handle in list(_HELD):
        with contextlib.suppress(OSError):
            handle.close()
    _HELD.clear()


os.register_at_fork(after_in_child=_drop_in_child)


def _in_use(path: Path, holder: str) -> DatabaseInUse:
    return DatabaseInUse(
        f"the SQLite database {path} is already served by process {holder}: SQLite serves "
        "one process per file. Stop that process, use another file, or run several "
        "processes on one PostgreSQL database (--db postgresql://…, docs/deploy.md)")


class Held:
    """The locks one process holds on one database: keep it until the engine is closed."""

    def __init__(self, path: Path, name_lock: IO[str]) -> None:
        self.path = path
        self.name_lock = name_lock
        self.file_lock: IO[bytes] | None = None

    def cover(self) -> None:
        """Lock the database file itself (its identity) if it exists and is not locked yet;
        `DatabaseInUse` if another process locked it meanwhile under another name."""
        if self.file_lock is not None or self.name_lock.closed:
            return
        try:
            handle = self.path.open("rb")
        except FileNotFoundError:
            return
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise _in_use(self.path, "another process (under another name of the file)"
                          ) from None
        self.file_lock = handle
        _HELD.add(handle)

    @property
    def closed(self) -> bool:
        return self.name_lock.closed

    def close(self) -> None:
        for handle in (self.file_lock, self.name_lock):
            if handle is not None:
                with contextlib.suppress(OSError):
                    handle.close()
        self.file_lock = None


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


def lock(db_url: str) -> Held | None:
    """Hold the database's process lock (keep the returned `Held` until the engine is
    closed), or raise `DatabaseInUse` naming the process that holds it."""
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
        raise _in_use(path, holder) from None
    held = Held(path, handle)
    try:
        held.cover()
    except DatabaseInUse:
        handle.close()
        raise
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    _HELD.add(handle)
    return held
