"""SQLite serves one process: a second server on the same file stops with a clear message
(and the `cogleague serve` command says the same), while the first keeps serving."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from cogleague.server.sqlite_lock import DatabaseInUse, lock
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
