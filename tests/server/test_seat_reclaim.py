"""A person who holds a seat but lost its token (another browser, cleared storage, a bot that
crashed before saving it) takes the seat back: `POST /tables/{id}/reclaim` gives the account
that holds the seat a fresh token, and the old token stops working at once (its socket, if
connected, is closed with the reason). Before, joining again answered `already_seated` and
nothing gave a token back.

Real server processes, real WebSocket seats; on PostgreSQL the reclaim is asked of another
process than the one that serves the old socket."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidStatus

from cogleague.client import LobbyClient
from server.rawws import next_frame, open_seat
from server.support import ServerProcess, new_account

CONFIG = {"rounds_total": 2, "seats": 3, "turn_deadline_ms": 20_000}


def reclaim(base: str, key: str, table: str) -> httpx.Response:
    return httpx.post(f"{base}/tables/{table}/reclaim",
                      headers={"Authorization": f"Bearer {key}"})


async def closed_with(ws: ClientConnection) -> tuple[int, str]:
    """The close code and reason the server closed `ws` with (frames before it skipped)."""
    try:
        while True:
            await asyncio.wait_for(ws.recv(), 60.0)  # a liveness bound
    except ConnectionClosed as exc:
        assert exc.rcvd is not None, "closed without a close frame"
        return exc.rcvd.code, exc.rcvd.reason


async def refused(base: str, table: str, seat: int, token: str) -> int:
    try:
        ws = await open_seat(base, table, seat, token)
    except InvalidStatus as exc:
        return exc.response.status_code
    await ws.close()
    return 0


async def play_out(ws: ClientConnection) -> dict[str, Any]:
    """Cooperate at every turn until the `end` frame."""
    while True:
        frame = await next_frame(ws)
        if frame["type"] == "your_turn":
            await ws.send(json.dumps({"type": "move", "turn_id": frame["turn_id"],
                                      "action": "cooperate"}))
        elif frame["type"] == "end":
            return frame


async def lose_and_reclaim(serve: ServerProcess, ask: ServerProcess, start_first: bool) -> None:
    """Join seat 0, connect with the token, lose it, reclaim it on `ask`: the old socket is
    closed with the reason, the old token is refused, the new one plays the table out."""
    _, key = await new_account(serve)
    _, stranger = await new_account(serve)
    async with LobbyClient(serve.url, key) as lobby:
        table = await lobby.create_table("dilemma", config=CONFIG, seed=3, pacing=False,
                                         fill_with="always_cooperate")
        tid = table["id"]
        old_token = (await lobby.join(tid, "remote", seat=0))["token"]
        old = await open_seat(serve.url, tid, 0, old_token)
        await next_frame(old, "snapshot")
        if start_first:
            await lobby.start(tid)
            await next_frame(old, "your_turn")

        assert reclaim(ask.url, stranger, tid).json()["error"]["code"] == "not_found"
        got = reclaim(ask.url, key, tid)
        assert got.status_code == 200, got.text
        body = got.json()
        assert body["seat"] == 0 and body["table"] == tid
        new_token = body["token"]
        assert new_token != old_token

        code, reason = await closed_with(old)
        assert (code, "taken back" in reason) == (1008, True), (code, reason)
        assert await refused(serve.url, tid, 0, old_token) == 401
        assert await refused(ask.url, tid, 0, old_token) == 401

        new = await open_seat(serve.url, tid, 0, new_token)
        await next_frame(new, "snapshot")
        if not start_first:
            await lobby.start(tid)
        end = await play_out(new)
        assert end["results"] is not None and "forfeit" not in str(end["reason"]), end
        assert reclaim(ask.url, key, tid).json()["error"]["code"] == "wrong_state"


async def test_a_lost_seat_token_is_reclaimed_on_a_running_table(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'reclaim.db'}")
    await lose_and_reclaim(server, server, start_first=True)


async def test_a_lost_seat_token_is_reclaimed_on_an_open_table(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'reclaim-open.db'}")
    await lose_and_reclaim(server, server, start_first=False)


@pytest.mark.postgres
@pytest.mark.parametrize("start_first", [True, False], ids=["running", "open"])
async def test_a_seat_reclaimed_on_another_process_closes_the_old_socket(
        pg_cluster: Any, make_server: Callable[..., ServerProcess], start_first: bool) -> None:
    db = pg_cluster.new_database()
    a, b = make_server(db), make_server(db)
    await lose_and_reclaim(a, b, start_first)


class ListenerKiller:
    """Keeps every server process's LISTEN connection down (terminated as soon as it is
    back) while it runs, so a notice sent meanwhile is missed, as it is when a process's
    listener is reconnecting after a network fault."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.stop = asyncio.Event()
        self.killed = 0

    def _kill(self) -> int:
        import psycopg

        with psycopg.connect(self.db, autocommit=True) as conn:
            return len(conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = 'cogleague-listen'").fetchall())

    async def run(self) -> None:
        while not self.stop.is_set():
            self.killed += await asyncio.to_thread(self._kill)
            await asyncio.sleep(0.02)


@pytest.mark.postgres
async def test_an_old_token_socket_closes_when_its_process_missed_the_seat_notice(
        pg_cluster: Any, make_server: Callable[..., ServerProcess]) -> None:
    """The process serving the old socket hears no ``seat:`` notice (its listener was
    reconnecting when the reclaim committed on another process): once its listener is back
    it checks its seat sockets' tokens and closes the old one. Before, it stayed open and
    played on with the replaced token."""
    db = pg_cluster.new_database()
    a, b = make_server(db), make_server(db)
    _, key = await new_account(a)
    async with LobbyClient(a.url, key) as lobby:
        table = await lobby.create_table("dilemma", config=CONFIG, seed=3, pacing=False,
                                         fill_with="always_cooperate")
        tid = table["id"]
        old_token = (await lobby.join(tid, "remote", seat=0))["token"]
        old = await open_seat(a.url, tid, 0, old_token)
        await next_frame(old, "snapshot")
        await lobby.start(tid)
        await next_frame(old, "your_turn")

        killer = ListenerKiller(db)
        killing = asyncio.create_task(killer.run())
        async def both_down() -> None:
            while killer.killed < 2:  # both processes' listeners are down
                await asyncio.sleep(0.02)

        await asyncio.wait_for(both_down(), 60.0)  # a liveness bound
        got = await asyncio.to_thread(reclaim, b.url, key, tid)
        assert got.status_code == 200, got.text
        await asyncio.sleep(1.0)  # the notice is long gone
        killer.stop.set()
        await killing

        code, reason = await closed_with(old)
        assert (code, "taken back" in reason) == (1008, True), (code, reason)
        new = await open_seat(a.url, tid, 0, got.json()["token"])
        end = await play_out(new)
        assert "forfeit" not in str(end["reason"]), end
