"""Crash recovery: the server is SIGKILLed mid-table and restarted on the same database; the
SDK bots reconnect and resume, and the table ends exactly as an uninterrupted run would."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, select

from cogleague.client import LobbyClient, play_seat
from cogleague.server.store import engine_url, log_entries
from server.support import ServerProcess, new_account, play_headless

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from dilemma_bot import PromiseKeeper

ROUNDS = 20


async def test_sigkill_mid_table_then_restart_finishes_with_the_same_results(
        db_url: str, make_server: Callable[..., ServerProcess]) -> None:
    server = make_server(db_url)
    names = ["keeper-a", "keeper-b", "tit_for_tat", "keeper-c"]
    config = {"rounds_total": ROUNDS}
    _, creator = await new_account(server)
    async with LobbyClient(server.url, creator) as lobby:
        table = await lobby.create_table("dilemma", config=config, seed=99, pacing=False)
    tid = table["id"]
    events_seen = [0]

    def count(frame: dict[str, Any]) -> None:
        if frame["type"] == "event":
            events_seen[0] += 1

    tasks = []
    for seat, name in enumerate(names):
        _, key = await new_account(server)
        async with LobbyClient(server.url, key) as lobby:
            if name == "tit_for_tat":
                await lobby.join(tid, "scripted", baseline=name, seat=seat)
                continue
            joined = await lobby.join(tid, "remote", seat=seat, name=name)
        tasks.append(asyncio.create_task(play_seat(
            PromiseKeeper(), server.url, tid, seat, joined["token"], reconnect_for_s=90,
            on_frame=count if seat == 0 else None)))
    await asyncio.sleep(0.2)
    async with LobbyClient(server.url, creator) as lobby:
        await lobby.start(tid)
    while events_seen[0] < 30:  # a few rounds in
        await asyncio.sleep(0.01)
    server.kill()
    async with LobbyClient(server.url) as lobby:
        assert all(not t.done() for t in tasks)  # the bots are waiting to reconnect
    server.start()
    outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 120)
    assert all(o.reconnects >= 1 for o in outcomes)
    async with LobbyClient(server.url) as lobby:
        served = await lobby.results(tid)
        replay = await lobby.replay(tid)
    headless = await play_headless("dilemma", [PromiseKeeper(), PromiseKeeper(), "tit_for_tat",
                                               PromiseKeeper()],
                                   seed=99, config=config, names=names)
    assert served == headless
    assert served["rounds_played"] == ROUNDS and served["reason"] == "complete"
    assert replay["results"] == headless
    log = server.log_path.read_text()
    # resumed at start-up, or — when the restart outlived the lease — taken over by its loop
    assert "resumed 1 running table" in log or "lease taken over by this process" in log
    # the play time is durable: it never goes back across the restart
    engine = create_engine(engine_url(db_url))
    with engine.connect() as conn:
        elapsed = list(conn.execute(select(log_entries.c.elapsed_ms).where(
            log_entries.c.table_id == tid).order_by(log_entries.c.idx)).scalars())
    engine.dispose()
    assert None not in elapsed and elapsed == sorted(elapsed) and elapsed[-1] > 0
