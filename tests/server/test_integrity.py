"""The start-up check: a corrupt database, or one that lost its data, is refused with one line
instead of answering health checks and then failing every request; `--create-db` starts a new
one where the operator says so; a missing file is a first start."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cogleague.server.app import create_app
from cogleague.server.integrity import DatabaseRefused, check_database
from cogleague.server.settings import Settings

COGLEAGUE = [sys.executable, "-c", "from cogleague.cli import main; main()"]
KEY = "integrity-operator-key-0123"


def _served_once(path: Path) -> None:
    """A database as a server leaves it: schema, house account, operator."""
    create_app(Settings(db_url=f"sqlite:///{path}", operator_key=KEY)).state.store.close()


def test_a_missing_file_is_a_first_start(tmp_path: Path) -> None:
    assert check_database(f"sqlite:///{tmp_path / 'new.db'}") == "new"


def test_a_served_database_passes(tmp_path: Path) -> None:
    path = tmp_path / "served.db"
    _served_once(path)
    assert check_database(f"sqlite:///{path}") == "ok"


def test_a_zero_byte_file_is_refused_unless_told_to_create(tmp_path: Path) -> None:
    path = tmp_path / "zero.db"
    path.touch()
    with pytest.raises(DatabaseRefused, match=r"empty \(0 bytes\).*--create-db"):
        check_database(f"sqlite:///{path}")
    with pytest.raises(DatabaseRefused):
        create_app(Settings(db_url=f"sqlite:///{path}", operator_key=KEY))
    assert check_database(f"sqlite:///{path}", create=True) == "created-on-request"
    create_app(Settings(db_url=f"sqlite:///{path}", operator_key=KEY,
                        create_db=True)).state.store.close()
    assert check_database(f"sqlite:///{path}") == "ok"


def test_a_file_without_the_tables_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"  # e.g. the schema was only in a deleted write-ahead log
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE something_else (x INTEGER)")
    with pytest.raises(DatabaseRefused, match="no cogleague tables"):
        check_database(f"sqlite:///{path}")


def test_a_database_that_lost_its_rows_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "wiped.db"
    _served_once(path)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA foreign_keys=OFF")
        conn.execute("DELETE FROM accounts")
    with pytest.raises(DatabaseRefused, match="no house account"):
        check_database(f"sqlite:///{path}")


def test_a_corrupt_file_is_refused_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.db"
    _served_once(path)
    data = bytearray(path.read_bytes())
    data[0:16] = b"not a database!!"  # the header's magic string
    path.write_bytes(bytes(data))
    with pytest.raises(DatabaseRefused, match="not a readable database"):
        check_database(f"sqlite:///{path}")
    garbage = tmp_path / "garbage.db"  # a file this process holds no lock on
    garbage.write_bytes(bytes(range(256)) * 64)
    run = subprocess.run([*COGLEAGUE, "serve", "--port", "0", "--db",
                          f"sqlite:///{garbage}", "--operator-key", KEY],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    message = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert any("not a readable database" in line for line in message), message
    assert "Traceback" not in run.stdout + run.stderr


async def test_a_postgres_database_with_tables_but_no_data_is_refused(pg_cluster: object
                                                                      ) -> None:
    url = pg_cluster.new_database()  # type: ignore[attr-defined]
    assert check_database(url) == "new"
    app = create_app(Settings(db_url=url, operator_key=KEY))
    app.state.store.close()
    assert check_database(url) == "ok"
    from sqlalchemy import create_engine, text

    from cogleague.server.store import engine_url

    engine = create_engine(engine_url(url))
    with engine.begin() as conn:
        conn.execute(text("TRUNCATE accounts CASCADE"))
    engine.dispose()
    with pytest.raises(DatabaseRefused, match="no house account"):
        check_database(url)
