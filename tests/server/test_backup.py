"""docs/server.md's backup command, run as written beside a serving SQLite server: a server
started on the copy has the accounts, keys, wallets and finished tables of the original."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import httpx

from helpers.docs import section, sh_blocks
from server.support import OPERATOR_KEY, ServerProcess

J = {"authorization": f"Bearer {OPERATOR_KEY}"}


def _paid_table(url: str) -> tuple[str, list[str]]:
    """A finished paid table of three scripted seats, each of its own account."""
    keys = [httpx.post(f"{url}/accounts", json={"name": f"p{i}", "credits": 100}, headers=J,
                       timeout=10).json()["api_key"] for i in range(3)]
    table = httpx.post(f"{url}/tables", json={
        "game": "dilemma", "stake": 10, "auto_start": True, "pacing": False,
        "config": {"seats": 3, "rounds_total": 3}},
        headers={"authorization": f"Bearer {keys[0]}"}, timeout=10).json()["id"]
    for key in keys:
        joined = httpx.post(f"{url}/tables/{table}/join", json={
            "kind": "scripted", "baseline": "tit_for_tat"},
            headers={"authorization": f"Bearer {key}"}, timeout=10)
        assert joined.status_code == 200, joined.text
    return table, keys


async def _finished(url: str, table: str) -> None:
    for _ in range(300):
        if httpx.get(f"{url}/tables/{table}", timeout=10).json()["state"] == "finished":
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"table {table} did not finish")


async def test_the_documented_backup_copies_a_serving_database(tmp_path: Path) -> None:
    (script,) = sh_blocks(section("backup", "docs/server.md"))
    server = ServerProcess(f"sqlite:///{tmp_path / 'cogleague-server.db'}",
                           tmp_path / "a.log").start()
    try:
        table, keys = _paid_table(server.url)
        await _finished(server.url, table)
        done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        wallets = [httpx.get(f"{server.url}/wallet", headers={"authorization": f"Bearer {k}"},
                             timeout=10).json() for k in keys]
    finally:
        server.stop()
    copy = ServerProcess(f"sqlite:///{tmp_path / 'backup.db'}", tmp_path / "b.log").start()
    try:
        assert httpx.get(f"{copy.url}/tables/{table}", timeout=10).json()["state"] == "finished"
        assert httpx.get(f"{copy.url}/tables/{table}/results", timeout=10).status_code == 200
        restored = [httpx.get(f"{copy.url}/wallet", headers={"authorization": f"Bearer {k}"},
                              timeout=10).json() for k in keys]
    finally:
        copy.stop()
    assert restored == wallets and sum(w["balance"] for w in wallets) < 300  # the rake
