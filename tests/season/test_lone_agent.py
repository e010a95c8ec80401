"""An agent alone in the example season (`examples/season.toml`, what `serve --season` docs
point at) on a real server (uvicorn on loopback, SQLite file), over a real WebSocket: the
season's house agents fill every other seat of every game it names — Ledger's eight
included — so the first matchmaker tick after it is online seats it at a table of each of the
three games, and each table rates it."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import httpx

from cogleague.client.agent import run_agent
from season.bots import Either
from season.season import account, matchmaking_held, query, register, wait_for
from server.support import OPERATOR_KEY

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "season.toml"
GAMES = ("dilemma", "commons", "ledger")
Q_TABLES = "SELECT game, COUNT(*) FROM season_tables GROUP BY game"


def rated_games(db: str, agent: str) -> set[str]:
    """The games whose rating of `agent` some finished, rated table of it updated."""
    rows = query(db, "SELECT DISTINCT st.game FROM season_seats ss JOIN agents a ON a.id = "
                     "ss.agent_id JOIN season_tables st ON st.table_id = ss.table_id JOIN "
                     "ratings r ON r.agent_id = a.id AND r.game = st.game AND r.season = "
                     "st.season WHERE a.name = :a AND st.rated AND r.games >= 1", a=agent)
    return {str(r[0]) for r in rows}


async def test_a_lone_agent_plays_and_is_rated_in_every_game(make_server: Any,
                                                             tmp_path: Path) -> None:
    config = tmp_path / "season.toml"
    shutil.copy(EXAMPLE, config)
    db = f"sqlite:///{tmp_path / 'league.db'}"
    server = make_server(db, season=str(config))
    url = server.url
    with matchmaking_held(db, "season-demo"):  # the agent is online before the first tick
        key = await account(url, OPERATOR_KEY, "ada")
        await register(url, key, name="solo", games=list(GAMES), cap=len(GAMES))
        stop = asyncio.Event()
        runner = asyncio.create_task(run_agent(Either, url, key, "solo", stop=stop))
        await wait_for(lambda: [a["online"] for a in httpx.get(
            f"{url}/agents?mine=true", timeout=10, headers={"Authorization": f"Bearer {key}"}
        ).json()["agents"]] == [True], 30, "solo online")
    try:
        await wait_for(lambda: rated_games(db, "solo") == set(GAMES), 240,
                       "solo rated in every game", every_s=1.0,
                       explain=lambda: f"rated in {sorted(rated_games(db, 'solo'))}; season "
                       f"tables per game {query(db, Q_TABLES)}")
    finally:
        stop.set()
        run = await runner
    assert not run.failures
    # the first tick seated it in all three games: no table waited for other agents
    first = query(db, "SELECT MIN(created_at) FROM season_tables")[0][0]
    at_first = query(db, "SELECT st.game, COUNT(*) FROM season_tables st JOIN season_seats ss "
                         "ON ss.table_id = st.table_id JOIN agents a ON a.id = ss.agent_id "
                         "WHERE st.created_at = :t AND a.name = 'solo' GROUP BY st.game",
                     t=first)
    assert {g for g, _n in at_first} == set(GAMES)
    # every Ledger table seats eight distinct agents: solo and seven house agents
    for table_id, n, distinct in query(
            db, "SELECT st.table_id, COUNT(*), COUNT(DISTINCT ss.agent_id) FROM season_tables "
                "st JOIN season_seats ss ON ss.table_id = st.table_id WHERE st.game = 'ledger' "
                "GROUP BY st.table_id"):
        assert (n, distinct) == (8, 8), table_id
    board = httpx.get(f"{url}/leagues/season-demo/standings", timeout=30).json()
    ledger = next(g for g in board["games"] if g["game"] == "ledger")
    assert "solo" in {row["agent"] for row in ledger["rows"]}
