"""One table's bad log row never fails another table's group commit.

First on the store itself (a real SQLite file and a throwaway PostgreSQL): 31 tables append
in one group commit, one row holds a lone surrogate; the 30 others are stored and only the
poisoned table learns its row was not (`LogWriteFault`). Then on a real server: a seat poisons
its own paid table (through a game whose parser lets it, `toypoison`) while 30 honest tables
play beside it; the 30 finish with their own results, the poisoned table is aborted, and the
seat that caused it forfeits its stake to the others — credits are neither made nor lost."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert

from cogleague.client import LobbyClient
from cogleague.server.logbatch import LogWriteFault
from cogleague.server.store import Store, accounts, log_rows, tables
from server.rawws import next_frame, open_seat, send
from server.support import ServerProcess, new_account

TABLES = 31
POISONED = 17


def _tables(store: Store) -> list[str]:
    ids = [f"t_{i:02d}" for i in range(TABLES)]
    with store.engine.begin() as conn:
        acct = conn.execute(insert(accounts).values(name="op", key_digest="d" * 64,
                                                    role="operator", created_at=0.0)
                            ).inserted_primary_key[0]
        for t in ids:
            conn.execute(insert(tables).values(
                id=t, game="toy", config="{}", seed=1, stake=0, info="{}", num_seats=1,
                state="running", creator_id=acct, created_at=0.0, start_deadline=0.0))
    return ids


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.db'}"
    else:
        url = request.getfixturevalue("pg_cluster").new_database()
    made = Store(url)
    made.create_schema()
    yield made
    made.close()


async def test_a_poisoned_row_fails_only_its_own_table(store: Store) -> None:
    ids = _tables(store)
    batches: list[int] = []
    append = store._append

    def counted(rows: list[dict[str, Any]], again: bool = False) -> set[str]:
        batches.append(len(rows))
        return append(rows, again)

    store._append = counted  # type: ignore[method-assign]  # counts; the real write runs
    poisoned = ids[POISONED]
    outcomes = await asyncio.gather(*(
        store.append_log(t, 0, {"op": "apply", "note": "\ud800" if t == poisoned else "ok"},
                         [{"event": {"kind": "move", "text": "fine"}}])
        for t in ids), return_exceptions=True)
    assert batches[0] == TABLES  # all 31 rows were in one group commit, which failed
    assert [o is None for o in outcomes] == [t != poisoned for t in ids]
    fault = outcomes[POISONED]
    assert isinstance(fault, LogWriteFault) and fault.table_id == poisoned
    assert isinstance(fault.cause, UnicodeEncodeError)
    stored = {t: store.tx_sync(log_rows, t) for t in ids}
    assert stored[poisoned] == []
    assert all(len(stored[t]) == 1 and stored[t][0]["entry"]["note"] == "ok"
               for t in ids if t != poisoned)
    # the next group commit is a normal one again, on a fresh connection
    batches.clear()
    await asyncio.gather(*(store.append_log(t, 1, {"op": "apply"}, []) for t in ids))
    assert batches == [TABLES]
    assert all(len(store.tx_sync(log_rows, t)) == (2 if t != poisoned else 1) for t in ids)


# -- on a live server ------------------------------------------------------------------------
HONEST_ROUNDS = 60
STAKE, CREDITS = 10, 50


async def _honest_table(server: ServerProcess, key: str, lineup: list[int]) -> str:
    async with LobbyClient(server.url, key) as creator:
        table = await creator.create_table("toy", config={"seats": len(lineup),
                                                          "rounds": HONEST_ROUNDS},
                                           seed=3, pacing=False)
    for seat, const in enumerate(lineup):
        _, k = await new_account(server)
        async with LobbyClient(server.url, k) as lobby:
            await lobby.join(table["id"], "scripted", baseline=f"const{const}", seat=seat)
    return str(table["id"])


async def _ended(server: ServerProcess, key: str, table_id: str) -> dict[str, Any]:
    async with LobbyClient(server.url, key) as client:
        for _ in range(1200):
            table = await client.table(table_id)
            if table["state"] in ("finished", "aborted"):
                return table
            await asyncio.sleep(0.05)
    raise AssertionError(f"table {table_id} did not end")


async def _balances(server: ServerProcess, keys: list[str]) -> list[int]:
    out = []
    for k in keys:
        async with LobbyClient(server.url, k) as lobby:
            out.append((await lobby.wallet())["balance"])
    return out


def test_a_seat_poisoning_its_own_table_beside_30_honest_ones_forfeits(
        make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'poison.db'}",
                         extra_games={"toy": "server.toyinfo", "toypoison": "server.toypoison"},
                         max_open_tables_per_account=100)

    async def go() -> None:
        _, key = await new_account(server)
        lineups = [[(i + s) % 10 for s in range(3)] for i in range(30)]
        honest = [await _honest_table(server, key, lineup) for lineup in lineups]
        async with LobbyClient(server.url, key) as creator:
            paid = await creator.create_table("toypoison", config={"seats": 3, "rounds": 50},
                                              seed=4, pacing=False, stake=STAKE)
        tid = paid["id"]
        keys, tokens = [], []
        for seat in range(3):
            _, k = await new_account(server, credits=CREDITS)
            keys.append(k)
            async with LobbyClient(server.url, k) as lobby:
                if seat == 0:
                    tokens.append((await lobby.join(tid, "remote", seat=0))["token"])
                else:
                    await lobby.join(tid, "scripted", baseline=f"const{4 + seat}", seat=seat)
        ws = await open_seat(server.url, tid, 0, tokens[0])
        await next_frame(ws, "snapshot")
        async with LobbyClient(server.url, key) as creator:
            await creator.start(tid)
            turn = await next_frame(ws, "your_turn")
            await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 1})
            assert (await next_frame(ws, "ack"))["turn_id"] == turn["turn_id"]
            for t in honest:
                await creator.start(t)
            turn = await next_frame(ws, "your_turn")  # round 1: the poisoned note
            await send(ws, {"type": "move", "turn_id": turn["turn_id"], "n": 0,
                            "note": "\\ud800"})  # the escape text; the game's parser decodes it
            assert (await next_frame(ws, "ack"))["turn_id"] == turn["turn_id"]
            end = await next_frame(ws, "end", timeout=60)
            await ws.close()
            poisoned = await _ended(server, key, tid)
            results = [await _ended(server, key, t) for t in honest]
            stored = [await creator.results(t) for t in honest]
            paid_results = await creator.results(tid)
        assert end["reason"] == "aborted"
        assert poisoned["state"] == "aborted"
        assert paid_results["forfeit"] == 0 and "seat 0 caused the abort" in \
            paid_results["detail"]
        assert [r["state"] for r in results] == ["finished"] * 30
        assert [r["scores"] for r in stored] == [[c * HONEST_ROUNDS for c in lineup]
                                                 for lineup in lineups]
        # the offender's stake is shared by the other two; nothing made, nothing lost
        assert await _balances(server, keys) == [CREDITS - STAKE, CREDITS + STAKE // 2,
                                                 CREDITS + STAKE // 2]
        assert "Traceback" not in (tmp_path / "server0.log").read_text()

    asyncio.run(go())
