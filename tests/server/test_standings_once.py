"""Every finished table reaches the league standings exactly once: 30 tables started at the
same moment finish together, and the server's league store holds 30 episodes, one per table
(the records are written on the database thread, one writer, until stored). A table whose
record a crash lost is recorded at the next start."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from sqlalchemy import create_engine, delete, select
from sqlalchemy.exc import DBAPIError

from cogleague.client import LobbyClient
from cogleague.league.store import EpisodeRow, SeatRow, episode_id_for_table
from cogleague.server.store import engine_url, tables
from server.support import ServerProcess, new_account

N = 30


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
    assert sorted(episodes) == sorted(episode_id_for_table(t) for t in ids)
    assert "Traceback" not in server.log_path.read_text()
    # a crash between a table's end and its league record: the next start records it
    server.stop()
    lost = episode_id_for_table(ids[7])
    engine = create_engine(engine_url(db_url))
    with engine.begin() as conn:
        conn.execute(delete(SeatRow).where(SeatRow.episode_id == lost))
        conn.execute(delete(EpisodeRow).where(EpisodeRow.id == lost))
    engine.dispose()
    assert len(_read(db_url, ids)[1]) == N - 1
    make_server(db_url, max_open_tables_per_account=N)
    _, episodes = _read(db_url, ids)
    assert sorted(episodes) == sorted(episode_id_for_table(t) for t in ids)
