"""Fixtures: real server processes on loopback, over SQLite files or a throwaway PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from server.support import ServerProcess


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One SQLite-backed server for the tests that only need *a* server."""
    d = tmp_path_factory.mktemp("shared")
    server = ServerProcess(f"sqlite:///{d / 'server.db'}", d / "server.log",
                           max_open_tables_per_account=5, ping_interval_s=0.5).start()
    yield server
    server.stop()


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start servers on a given database; every one is stopped at the end of the test."""
    started: list[ServerProcess] = []

    def make(db: str, **settings: Any) -> ServerProcess:
        server = ServerProcess(db, tmp_path / f"server{len(started)}.log", **settings).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()
        show_tracebacks(server.log_path)


def show_tracebacks(log: Path, tail: int = 6000) -> None:
    """Print the end of a server's log when it holds a traceback: pytest shows it beside a
    failing test (a 500 the test only sees as "Internal Server Error" says why here)."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    if "Traceback (most recent call last)" in text:
        print(f"--- {log.name}, last {tail} characters ---\n{text[-tail:]}")
