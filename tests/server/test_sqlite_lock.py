"""SQLite serves one process: a second server on the same file stops with a clear message
(and the `cogleague serve` command says the same), while the first keeps serving."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from cogleague.server.sqlite_lock import DatabaseInUse, lock, sqlite_file
from server.support import ServerProcess


def test_a_second_process_on_the_same_sqlite_file_is_refused(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'one.db'}"
    first = ServerProcess(db, tmp_path / "first.log").start()
    try:
        second = ServerProcess(db, tmp_path / "second.log")
        with pytest.raises(RuntimeError) as exited:
            second.start()
        message = str(exited.value)
        assert "is already served by process" in message and "PostgreSQL" in message
        assert str(first.proc.pid) in message  # type: ignore[union-attr]
        assert httpx.get(first.url + "/healthz").status_code == 200
    finally:
        first.stop()


def test_the_lock_is_per_file_and_released_on_close(tmp_path: Path) -> None:
    a = lock(f"sqlite:///{tmp_path / 'a.db'}")
    b = lock(f"sqlite:///{tmp_path / 'b.db'}")  # another file: no conflict
    with pytest.raises(DatabaseInUse):
        lock(f"sqlite:///{tmp_path / 'a.db'}")
    assert a is not None and b is not None
    a.close()
    again = lock(f"sqlite:///{tmp_path / 'a.db'}")
    assert again is not None
    again.close()
    b.close()
    assert lock("sqlite:///:memory:") is None and lock("postgresql://x@y/z") is None


def test_a_forked_child_does_not_keep_its_parents_lock(tmp_path: Path) -> None:
    """A league's workers are forked while the run holds the lock: once the run lets go, the
    file is free even while a worker is still alive."""
    import os
    import signal

    url = f"sqlite:///{tmp_path / 'league.db'}"
    held = lock(url)
    assert held is not None
    read_end, write_end = os.pipe()
    ready_read, ready_write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child says it runs, then waits to be killed
        os.close(write_end)
        os.write(ready_write, b"!")  # the fork's hooks have run in the child
        os.read(read_end, 1)
        os._exit(0)
    try:
        os.close(read_end)
        os.close(ready_write)
        assert os.read(ready_read, 1) == b"!"
        with pytest.raises(DatabaseInUse):
            lock(url)  # the parent still holds it
        held.close()
        again = lock(url)  # the child is alive, and holds nothing
        assert again is not None
        again.close()
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        os.close(write_end)
        os.close(ready_read)


def test_every_spelling_of_one_file_takes_the_same_lock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLAlchemy opens `sqlite:///file:/path/x.db?uri=true` as /path/x.db: a server and a
    league run spelling one file two ways must not both write it (nor litter `file:` dirs)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    db = tmp_path / "same.db"
    plain = f"sqlite:///{db}"
    spellings = [f"sqlite:///file:{db}?uri=true", f"sqlite:///file://{db}?uri=true",
                 f"sqlite:///file://localhost{db}?uri=true&mode=rwc",
                 "sqlite+pysqlite:///file:../same.db?uri=true", "sqlite:///../same.db"]
    for spelling in spellings:
        assert sqlite_file(spelling) == db.resolve(), spelling
        held = lock(spelling)
        assert held is not None
        with pytest.raises(DatabaseInUse):
            lock(plain)
        held.close()
        first = lock(plain)
        assert first is not None
        with pytest.raises(DatabaseInUse):
            lock(spelling)
        first.close()
    assert list(work.iterdir()) == []
    assert sqlite_file("sqlite:///file::memory:?cache=shared&uri=true") is None
    assert sqlite_file("sqlite:///file:mem1?mode=memory&cache=shared&uri=true") is None


def test_a_league_store_spelled_as_a_uri_makes_its_own_folder_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cogleague.league import store

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    db = tmp_path / "runs" / "league.db"
    store.engine_for(f"sqlite:///file:{db}?uri=true").dispose()
    assert db.exists() and list(work.iterdir()) == []


def test_every_name_of_one_file_takes_the_same_lock(tmp_path: Path) -> None:
    """Hard links are one file under several names (in other folders too): a server on one
    name and a league run on another must not both write it."""
    import os
    import sqlite3

    db = tmp_path / "one.db"
    sqlite3.connect(db).close()
    (tmp_path / "elsewhere").mkdir()
    other = tmp_path / "elsewhere" / "two.db"
    os.link(db, other)
    for first, second in [(db, other), (other, db)]:
        held = lock(f"sqlite:///{first}")
        assert held is not None
        with pytest.raises(DatabaseInUse):
            lock(f"sqlite:///{second}")
        with pytest.raises(DatabaseInUse):
            lock(f"sqlite:///file:{second}?uri=true")
        held.close()
        again = lock(f"sqlite:///{second}")  # let go: the other name is free
        assert again is not None
        again.close()


def test_a_new_file_is_covered_once_it_exists(tmp_path: Path) -> None:
    """A server that starts on a file not made yet holds its name; once it made the file,
    another name of it is refused too."""
    import os
    import sqlite3

    db = tmp_path / "new.db"
    held = lock(f"sqlite:///{db}")
    assert held is not None and not db.exists()
    sqlite3.connect(db).close()  # the server makes it
    held.cover()
    os.link(db, tmp_path / "link.db")
    with pytest.raises(DatabaseInUse):
        lock(f"sqlite:///{tmp_path / 'link.db'}")
    held.close()
    again = lock(f"sqlite:///{tmp_path / 'link.db'}")
    assert again is not None
    again.close()
