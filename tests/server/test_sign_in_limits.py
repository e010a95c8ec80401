"""A password guesser gets a few tries per name, not unlimited ones; expired browser sessions
do not pile up in the database. A real server process on a SQLite file."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx

PASSWORD = "correct horse battery"
WINDOW_S = 3.0


def _sign_in(url: str, name: str, password: str) -> httpx.Response:
    return httpx.post(f"{url}/session", json={"name": name, "password": password}, timeout=30)


def test_failed_sign_ins_lock_the_name_for_a_while(make_server: Any, tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'server.db'}", sign_in_failures=5,
                         sign_in_window_s=WINDOW_S)
    for name in ("victim", "bystander"):
        made = httpx.post(f"{server.url}/people", json={"name": name, "password": PASSWORD})
        assert made.status_code == 201, made.text
    for i in range(5):
        assert _sign_in(server.url, "victim", f"guess number {i}").status_code == 401
    locked = _sign_in(server.url, "victim", PASSWORD)  # even the right password: not now
    assert locked.status_code == 429, locked.text
    error = locked.json()["error"]
    assert error["code"] == "rate_limited" and "victim" in error["message"], error
    assert "5 failed sign-ins" in error["message"], error
    assert 0 < int(locked.headers["retry-after"]) <= WINDOW_S + 1, locked.headers
    assert _sign_in(server.url, "bystander", PASSWORD).status_code == 200  # per name
    assert _sign_in(server.url, "nobody", "guess guess").status_code == 401
    time.sleep(float(locked.headers["retry-after"]) + 0.2)
    assert _sign_in(server.url, "victim", PASSWORD).status_code == 200


async def test_concurrent_guesses_are_counted_before_they_are_checked(
        make_server: Any, tmp_path: Path) -> None:
    """Forty guesses sent at once: each scrypt check takes a while, so a guard that counted
    only finished failures would let all of them through."""
    server = make_server(f"sqlite:///{tmp_path / 'server.db'}", sign_in_failures=5)
    made = httpx.post(f"{server.url}/people", json={"name": "target", "password": PASSWORD})
    assert made.status_code == 201, made.text
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        answers = await asyncio.gather(*(
            http.post("/session", json={"name": "target", "password": f"guess number {i}"})
            for i in range(40)))
    codes = sorted(a.status_code for a in answers)
    assert codes.count(401) == 5 and codes.count(429) == 35, codes


def test_expired_sessions_are_swept(make_server: Any, tmp_path: Path) -> None:
    db = tmp_path / "server.db"
    server = make_server(f"sqlite:///{db}", session_sweep_every_s=0.0)
    for name in ("early", "late"):
        made = httpx.post(f"{server.url}/people", json={"name": name, "password": PASSWORD})
        assert made.status_code == 201, made.text
    with sqlite3.connect(db) as conn:  # thirty days pass for every session so far
        conn.execute("UPDATE web_sessions SET expires_at = ?", (time.time() - 1,))
    assert _sign_in(server.url, "late", PASSWORD).status_code == 200
    with sqlite3.connect(db) as conn:
        left = conn.execute("SELECT COUNT(*), MIN(expires_at) FROM web_sessions").fetchone()
    assert left[0] == 1 and left[1] > time.time(), left  # only the new one


def _cpu_s(pid: int) -> float:
    """The CPU time a process has used, all its threads (Linux `/proc`)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_wrong_name_costs_what_a_wrong_password_costs(make_server: Any,
                                                        tmp_path: Path) -> None:
    """'unknown name or wrong password' must not be told apart by the time the answer takes:
    an unknown name (or the operator's, which has no password) pays the same scrypt check as
    a person's wrong password. Measured as the server's CPU time, not the clock, so a busy
    machine does not blur it (before: a few ms against ≈ 100 ms a try)."""
    server = make_server(f"sqlite:///{tmp_path / 'server.db'}")
    assert server.proc is not None
    made = httpx.post(f"{server.url}/people", json={"name": "known", "password": PASSWORD})
    assert made.status_code == 201, made.text

    def cpu_s(names: list[str]) -> float:
        before = _cpu_s(server.proc.pid)
        for name in names:
            assert _sign_in(server.url, name, "not the password").status_code == 401
        return _cpu_s(server.proc.pid) - before

    wrong_password = cpu_s(["known"] * 4)
    for names in (["nobody1", "nobody2", "nobody3", "nobody4"], ["operator"] * 4):
        other = cpu_s(names)
        assert other > wrong_password / 3, (names[0], other, wrong_password)


def test_one_address_gets_a_few_sign_ins_across_every_name(make_server: Any,
                                                            tmp_path: Path) -> None:
    """The per-name count stops guesses at one name, not one password tried at every name
    (spraying), nor a flood of sign-ins that each cost an scrypt check: one client address
    gets `sign_ins_per_client` tries per window, whichever names they are at (a success
    counts too: each costs the check), then 429 before any check; another address is not
    held back (the loopback proxy is trusted: X-Forwarded-For names the client)."""
    server = make_server(f"sqlite:///{tmp_path / 'server.db'}", sign_in_failures=5,
                         sign_ins_per_client=4, sign_in_window_s=WINDOW_S)
    made = httpx.post(f"{server.url}/people", json={"name": "mine", "password": PASSWORD},
                      headers={"X-Forwarded-For": "192.0.2.50"})
    assert made.status_code == 201, made.text

    def sign_in(name: str, password: str, client: str) -> httpx.Response:
        return httpx.post(f"{server.url}/session", json={"name": name, "password": password},
                          headers={"X-Forwarded-For": client}, timeout=30)

    sprayer = "198.51.100.60"
    assert sign_in("mine", PASSWORD, sprayer).status_code == 200
    for name in ("alice", "bob", "carol"):
        assert sign_in(name, "Password1234", sprayer).status_code == 401
    refused = sign_in("dave", "Password1234", sprayer)
    assert refused.status_code == 429, refused.text
    error = refused.json()["error"]
    assert error["code"] == "rate_limited" and "this address" in error["message"], error
    assert 0 < int(refused.headers["retry-after"]) <= WINDOW_S + 1, refused.headers
    assert sign_in("mine", PASSWORD, sprayer).status_code == 429  # even its own account
    assert sign_in("mine", PASSWORD, "198.51.100.61").status_code == 200  # another address
    time.sleep(float(refused.headers["retry-after"]) + 0.2)
    assert sign_in("mine", PASSWORD, sprayer).status_code == 200
