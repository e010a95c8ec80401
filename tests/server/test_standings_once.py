"""Every finished table reaches the league standings exactly once: 30 tables started at the
same moment finish together, and the server's league store holds 30 episodes, one per table
(the records are written on the database thread, one writer, until stored)."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable

from sqlalchemy import create_engine, select
from sqlalchemy.exc import DBAPIError

from cogleague.client import LobbyClient
from cogleague.core import jsonio
from cogleague.league.store import ID_HEX_CHARS, EpisodeRow
from cogleague.server.store import engine_url, tables
from server.support import ServerProcess, new_account

N = 30


def _episode_id(table_id: str) -> str:
    """The id `league.store.record_episode` gives a server table."""
    return hashlib.sha256(jsonio.dumps({"source": "server", "table": table_id}).encode()
                          ).hexdigest()[:ID_HEX_CHARS]


def _read(db: str, ids: list[str]) -> tuple[dict[str, str], list[str]]:
    engine = create_engine(engine_url(db))
    try:
        with engine.connect() as conn:
            states = {r.id: r.state for r in conn.execute(
                select(tables.c.id, tables.c.state).where(tables.c.id.in_(ids)))}
            try:
                episodes = list(conn.execute(select(EpisodeRow.id).where(
                    EpisodeRow.source == "server")).scalars())
            except DBAPIError:  # nothing recorded yet: the league tables come with the first
                episodes = []
    finally:
        engine.dispose()
    return states, episodes


async def test_thirty_tables_finishing_together_reach_the_standings_once_each(
        db_url: str, make_server: Callable[..., ServerProcess]) -> None:
    server = make_server(db_url, max_open_tables_per_account=N)
    _, key = await new_account(server)
    ids = []
    async with LobbyClient(server.url, key) as lobby:
        for i in range(N):
            table = await lobby.create_table("toy", config={"seats": 3, "rounds": 4}, seed=i,
                                             fill_with=f"const{i % 10}", pacing=False)
            ids.append(table["id"])
    async with LobbyClient(server.url, key) as lobby:
        await asyncio.gather(*(lobby.start(t) for t in ids))
    deadline = time.monotonic() + 60
    while True:
        states, episodes = _read(db_url, ids)
        if set(states.values()) == {"finished"} and len(episodes) >= N:
            break
        assert time.monotonic() < deadline, (states, len(episodes))
        await asyncio.sleep(0.2)
    await asyncio.sleep(1.0)  # a late duplicate would show up now
    _, episodes = _read(db_url, ids)
    assert sorted(episodes) == sorted(_episode_id(t) for t in ids)
    assert "Traceback" not in server.log_path.read_text()
