"""A table aborted by a bug of the game (not by a seat) tells its seats and spectators that it
failed and the exception's type, never the exception's text: that text is the server's (a
path, a host, a key) and the results are public. The traceback goes to the server's log."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path

import pytest

from cogleague.server.app import bootstrap
from cogleague.server.catalog import Catalog
from cogleague.server.settings import Settings
from cogleague.server.store import Store, table_row
from cogleague.server.tables import Account, TableService
from server.toycrash import SECRET


def test_a_game_bug_aborts_the_table_without_its_message_in_the_results(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = Store(f"sqlite:///{tmp_path / 'crash.db'}")
    bootstrap(store, "operator-key-for-crash-tests")
    op = Account(int(store.tx_sync(lambda c: c.exec_driver_sql(
        "SELECT id FROM accounts WHERE role = 'operator'").scalar_one())), "operator", "operator")

    async def run() -> tuple[str, str | None]:
        svc = TableService(store, Catalog({"toycrash": "server.toycrash"}),
                           Settings(db_url=store.url, record_league=False))
        made = await svc.create(op, {"game": "toycrash", "fill_with": "const1", "pacing": False,
                                     "config": {"seats": 2, "rounds": 5}})
        table = str(made["id"])
        await svc.start(op, table)
        room = svc.rooms[table]
        deadline = time.monotonic() + 30
        while (row := await store.tx(table_row, table)) is not None \
                and row["state"] == "running" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        told = room.watch.end_text
        await svc.shutdown()
        return table, told

    try:
        with caplog.at_level(logging.WARNING, logger="cogleague.server"):
            table, told = asyncio.run(run())
        row = store.tx_sync(table_row, table)
        assert row is not None and row["state"] == "aborted", row
        detail = json.loads(row["results"])["detail"]
        assert SECRET not in detail and "RuntimeError" in detail, detail
        assert told is not None and SECRET not in told, told  # what spectators were sent
        assert any(r.exc_info and SECRET in str(r.exc_info[1]) for r in caplog.records)
    finally:
        store.close()
