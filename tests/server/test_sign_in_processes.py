"""The sign-in guard holds across the processes sharing one database, and across a restart:
a guesser who spreads tries over N processes, or waits for a restart, still gets only the
configured few per name and window (before: each process counted in its own memory)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.support import ServerProcess

PASSWORD = "correct horse battery"


def _sign_in(url: str, name: str, password: str) -> httpx.Response:
    return httpx.post(f"{url}/session", json={"name": name, "password": password}, timeout=30)


@pytest.mark.postgres
def test_two_processes_share_one_budget_per_name(
        pg_cluster: Any, make_server: Callable[..., ServerProcess]) -> None:
    """SQLite serves one process per file (`sqlite_lock.py`): several processes means
    PostgreSQL."""
    db_url = pg_cluster.new_database()
    a = make_server(db_url, sign_in_failures=5, sign_in_window_s=600.0)
    b = make_server(db_url, sign_in_failures=5, sign_in_window_s=600.0)
    made = httpx.post(f"{a.url}/people", json={"name": "victim", "password": PASSWORD})
    assert made.status_code == 201, made.text
    codes = [_sign_in(server.url, "victim", f"guess number {i}").status_code
             for i, server in enumerate([a, b] * 5)]
    assert codes == [401] * 5 + [429] * 5, codes
    refused = _sign_in(b.url, "victim", PASSWORD)
    assert refused.status_code == 429 and "5 failed sign-ins" in refused.text, refused.text
    assert 0 < int(refused.headers["retry-after"]) <= 601, refused.headers
    assert _sign_in(a.url, "nobody", "guess guess").status_code == 401  # per name


def test_a_restart_does_not_forget_the_failures(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'server.db'}"
    first = make_server(db, sign_in_failures=3, sign_in_window_s=600.0)
    made = httpx.post(f"{first.url}/people", json={"name": "victim", "password": PASSWORD})
    assert made.status_code == 201, made.text
    for i in range(3):
        assert _sign_in(first.url, "victim", f"guess number {i}").status_code == 401
    first.stop()
    again = make_server(db, sign_in_failures=3, sign_in_window_s=600.0)
    assert _sign_in(again.url, "victim", "guess number 3").status_code == 429


def test_an_older_database_gets_the_guard_table(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    """A database made before the guard kept its count there: the server adds the table."""
    path = tmp_path / "server.db"
    first = make_server(f"sqlite:///{path}")
    made = httpx.post(f"{first.url}/people", json={"name": "old", "password": PASSWORD})
    assert made.status_code == 201, made.text
    first.stop()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE IF EXISTS sign_in_tries")
    again = make_server(f"sqlite:///{path}", sign_in_failures=2)
    assert _sign_in(again.url, "old", "wrong one").status_code == 401
    assert _sign_in(again.url, "old", PASSWORD).status_code == 200
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sign_in_tries").fetchall()
    assert rows == [("@127.0.0.1",)], rows  # the name's count is gone; the address's stays




@pytest.mark.postgres
async def test_guesses_sent_at_once_to_two_processes_get_one_budget(
        pg_cluster: Any, make_server: Callable[..., ServerProcess]) -> None:
    """Forty guesses at once, half to each process: the name's row is locked while a try is
    counted, so the two cannot both take the last try."""
    db_url = pg_cluster.new_database()
    servers = [make_server(db_url, sign_in_failures=5), make_server(db_url, sign_in_failures=5)]
    made = httpx.post(f"{servers[0].url}/people", json={"name": "target", "password": PASSWORD})
    assert made.status_code == 201, made.text
    async with httpx.AsyncClient(timeout=60) as http:
        answers = await asyncio.gather(*(
            http.post(f"{servers[i % 2].url}/session",
                      json={"name": "target", "password": f"guess number {i}"})
            for i in range(40)))
    codes = sorted(a.status_code for a in answers)
    assert codes.count(401) == 5 and codes.count(429) == 35, codes
