"""A person's new API key retires the old one for the agent socket too: a `/ws/agent` opened
with the old key is closed (1008, saying why), on the process that made the new key and on
every other process sharing the database; the new key connects."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from cogleague.server.people import CSRF_HEADER
from season.season import register, season_file

PASSWORD = "correct horse battery"
CLOSED_WITHIN_S = 5.0


async def _agent(url: str, key: str, name: str) -> ClientConnection:
    q = urlencode({"agent": name, "key": key})
    ws = await connect(url.replace("http://", "ws://") + "/ws/agent?" + q, proxy=None)
    hello = json.loads(await ws.recv())
    assert hello["type"] == "hello", hello
    await ws.send(json.dumps({"type": "ready", "playing": []}))
    return ws


async def _closed(ws: ClientConnection) -> tuple[int | None, str]:
    """The close code and reason the server ends `ws` with (pings answered meanwhile)."""
    async def read() -> None:
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == "ping":
                await ws.send(json.dumps({"type": "pong"}))

    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(read(), CLOSED_WITHIN_S)
    assert ws.close_code is not None
    return ws.close_code, ws.close_reason or ""


async def _rotation(make_url: str, play_url: str) -> None:
    """Sign up on `make_url`, keep an agent online on `play_url`, make a new key on
    `make_url`: the agent's socket is closed, the old key refused, the new one accepted."""
    async with httpx.AsyncClient(base_url=make_url) as browser:
        signed_up = await browser.post("/people", json={"name": "rot", "password": PASSWORD})
        assert signed_up.status_code == 201, signed_up.text
        old = signed_up.json()["api_key"]
        await register(make_url, old, name="spinner", games=["dilemma"])
        ws = await _agent(play_url, old, "spinner")
        try:
            made = await browser.post("/session/api-key", headers={
                CSRF_HEADER: signed_up.json()["csrf"]})
            assert made.status_code == 200, made.text
            code, reason = await _closed(ws)
        finally:
            await ws.close()
    assert code == 1008 and "new API key" in reason, (code, reason)
    new = made.json()["api_key"]
    again = await _agent(play_url, new, "spinner")
    await again.close()


async def test_a_new_key_closes_the_agent_socket_of_the_old_one(
        make_server: Any, tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'league.db'}",
                         season=str(season_file(tmp_path, tables=1, final_top=0)))
    await _rotation(server.url, server.url)


@pytest.mark.postgres
async def test_a_new_key_made_on_another_process_closes_the_agent_socket(
        pg_cluster: Any, make_server: Any, tmp_path: Path) -> None:
    db = pg_cluster.new_database()
    season = str(season_file(tmp_path, tables=1, final_top=0))
    a, b = make_server(db, season=season), make_server(db, season=season)
    await _rotation(a.url, b.url)


async def test_a_new_key_whose_notice_was_missed_still_closes_the_old_keys_socket(
        make_server: Any, tmp_path: Path) -> None:
    """The key changes in the database behind the process's back (another process's ``keys:``
    notice lost, e.g. while its listener reconnected): the periodic re-check closes the
    socket anyway (before: it stayed open, playing with the old key, until it disconnected)."""
    db = tmp_path / "league.db"
    server = make_server(f"sqlite:///{db}", ping_interval_s=0.5, key_recheck_s=1.0,
                         season=str(season_file(tmp_path, tables=1, final_top=0)))
    signed_up = httpx.post(f"{server.url}/people", json={"name": "rot", "password": PASSWORD})
    assert signed_up.status_code == 201, signed_up.text
    old = signed_up.json()["api_key"]
    await register(server.url, old, name="spinner", games=["dilemma"])
    ws = await _agent(server.url, old, "spinner")
    try:
        with sqlite3.connect(db) as conn:  # a new key, and no notice of it
            conn.execute("UPDATE accounts SET key_digest = ? WHERE name = 'rot'", ("f" * 64,))
        code, reason = await _closed(ws)
    finally:
        await ws.close()
    assert code == 1008 and "new API key" in reason, (code, reason)


def test_a_new_key_whose_notice_was_missed_stops_working_over_http(
        make_server: Any, tmp_path: Path) -> None:
    """The process caches accounts by key digest: a missed ``keys:`` notice must not leave the
    old key working there for good (before: 200 until the process restarted)."""
    db = tmp_path / "server.db"
    server = make_server(f"sqlite:///{db}", key_recheck_s=1.0)
    signed_up = httpx.post(f"{server.url}/people", json={"name": "rot", "password": PASSWORD})
    assert signed_up.status_code == 201, signed_up.text
    old = {"Authorization": f"Bearer {signed_up.json()['api_key']}"}
    assert httpx.get(f"{server.url}/account", headers=old).status_code == 200  # cached
    with sqlite3.connect(db) as conn:  # a new key, and no notice of it
        conn.execute("UPDATE accounts SET key_digest = ? WHERE name = 'rot'", ("f" * 64,))
    deadline = time.monotonic() + CLOSED_WITHIN_S
    status = 200
    while status == 200 and time.monotonic() < deadline:
        time.sleep(0.2)
        status = httpx.get(f"{server.url}/account", headers=old).status_code
    assert status == 401, f"the old key still works {CLOSED_WITHIN_S} s after it was replaced"
