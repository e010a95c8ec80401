"""Two server processes on one throwaway PostgreSQL run one season; one is SIGKILLed
mid-season. The other takes over the matchmaker's lease and the killed process's tables: no
table, result or rating update is lost or counted twice."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from cogleague.client.agent import run_agent
from season.bots import Either
from season.season import account, query, register, season_file, standings, wait_for
from server.support import OPERATOR_KEY

pytestmark = pytest.mark.postgres
LEASE = {"lease_ttl_s": 3.0, "lease_renew_s": 0.5, "ping_interval_s": 1.0}


async def test_sigkill_of_one_process_mid_season_loses_nothing(
        pg_cluster: Any, make_server: Any, tmp_path: Path) -> None:
    db = pg_cluster.new_database()
    season = str(season_file(tmp_path, tables=40, max_running=6, fill_after_s=1.0,
                             final_top=0))
    first = make_server(db, season=season, **LEASE)
    second = make_server(db, season=season, **LEASE)
    urls = [first.url, second.url]
    owners = {"a1": "amy", "a2": "ben", "a3": "cat", "a4": "dan"}
    keys = {o: await account(first.url, OPERATOR_KEY, o) for o in owners.values()}
    for name, owner in owners.items():
        await register(second.url, keys[owner], name=name, games=["dilemma", "commons"], cap=2)
    stop = asyncio.Event()
    runners = [asyncio.create_task(run_agent(Either, urls[i % 2], keys[owner], name,
                                             stop=stop, servers=urls))
               for i, (name, owner) in enumerate(owners.items())]
    try:
        await wait_for(lambda: standings(second.url)["tables_made"] >= 12, 120,
                       "a third of the season")
        both = {r[0] for r in query(_url(db), "SELECT DISTINCT owner FROM tables "
                                              "WHERE owner IS NOT NULL")}
        first.kill()
        await wait_for(lambda: standings(second.url)["phase"] == "ended", 240,
                       "the season's end on the surviving process", every_s=1.0,
                       explain=lambda: _state(db, second))
    finally:
        stop.set()
        await asyncio.gather(*runners, return_exceptions=True)
    assert len(both) == 2, "tables ran on both processes before the kill"
    url = _url(db)
    tables = query(url, "SELECT st.table_id, st.rated, st.outcome, t.state FROM season_tables "
                        "st JOIN tables t ON t.id = st.table_id")
    assert len(tables) == 40 and all(t.state == "finished" and t.rated for t in tables)
    history = dict(query(url, "SELECT table_id, COUNT(*) FROM rating_history "
                              "GROUP BY table_id"))
    seated = dict(query(url, "SELECT table_id, COUNT(DISTINCT agent_id) FROM season_seats "
                             "GROUP BY table_id"))
    rated = [t.table_id for t in tables if t.outcome == "rated"]
    assert rated and history == {t: seated[t] for t in rated}
    games = dict(query(url, "SELECT agent_id, SUM(games) FROM ratings GROUP BY agent_id"))
    per_agent = dict(query(url, "SELECT ss.agent_id, COUNT(*) FROM season_seats ss JOIN "
                                "season_tables st ON st.table_id = ss.table_id WHERE "
                                "st.outcome = 'rated' GROUP BY ss.agent_id"))
    assert {a: int(n) for a, n in games.items()} == per_agent
    episodes = query(url, "SELECT COUNT(*) FROM league_episodes WHERE league = 'ci-season'")
    assert episodes[0][0] == len(tables)


def _state(db: str, server: Any) -> str:
    """What the season's tables, its row and the surviving process's log say."""
    url = _url(db)
    states = query(url, "SELECT t.state, t.owner IS NULL, COUNT(*) FROM season_tables st JOIN "
                        "tables t ON t.id = st.table_id GROUP BY t.state, t.owner IS NULL")
    season = query(url, "SELECT phase, tables_made, final_made FROM seasons")
    presence = query(url, "SELECT agent_id, node, until FROM agent_presence")
    log = server.log_path.read_text(errors="replace")[-3000:]
    return f"tables {states}; season {season}; presence {presence}; log: {log}"


def _url(db: str) -> str:
    return db.replace("postgresql://", "postgresql+psycopg://")
