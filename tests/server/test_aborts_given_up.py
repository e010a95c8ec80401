"""A real server whose SQLite database refuses a table's abort for good (a trigger): after
`SETTLE_ROUNDS` lease rounds the process stops retrying and lists the table on `/healthz`
(``aborts_given_up``) for an operator, the held stake untouched; once the database takes the
abort, the operator's abort refunds it and the list empties."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path

import httpx

from cogleague.client import LobbyClient
from server.support import ServerProcess, new_account, operator

REFUSE = ("CREATE TRIGGER refuse_abort BEFORE UPDATE ON tables WHEN NEW.state = 'aborted' "
          "BEGIN SELECT RAISE(ABORT, 'aborts refused'); END")


def _ddl(path: Path, statement: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(statement)


async def _given_up(server: ServerProcess, table: str) -> list[str]:
    """`/healthz`'s list once it names `table` (or after a minute: the assertion shows it)."""
    listed: list[str] = []
    async with httpx.AsyncClient() as client:
        for _ in range(1200):
            doc = (await client.get(f"{server.url}/healthz")).json()
            assert doc["status"] == "ok"
            listed = doc["aborts_given_up"]
            if table in listed:
                break
            await asyncio.sleep(0.05)
    return listed


def test_healthz_lists_an_abort_the_database_refuses_for_good(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    db = tmp_path / "server.db"
    server = make_server(f"sqlite:///{db}", lease_renew_s=0.05, lease_ttl_s=1.0)
    assert httpx.get(f"{server.url}/healthz").json() == {"status": "ok", "aborts_given_up": []}
    _ddl(db, REFUSE)

    async def run() -> None:
        _, creator_key = await new_account(server)
        _, key = await new_account(server, credits=10)
        async with LobbyClient(server.url, creator_key) as creator:
            table = str((await creator.create_table("dilemma", stake=10,
                                                    start_timeout_s=0.1))["id"])
        async with LobbyClient(server.url, key) as player:
            await player.join(table, "remote")
            assert await _given_up(server, table) == [table]
            assert (await player.table(table))["state"] == "open"  # nothing stored changed
            assert (await player.wallet())["balance"] == 0  # the stake still held
            _ddl(db, "DROP TRIGGER refuse_abort")
            async with operator(server) as op:
                await op.abort(table)
            assert (await player.table(table))["state"] == "aborted"
            wallet = await player.wallet()
            assert wallet["balance"] == 10 and wallet["entries"][0]["kind"] == "refund"
        after = httpx.get(f"{server.url}/healthz").json()
        assert after == {"status": "ok", "aborts_given_up": []}

    asyncio.run(run())
