"""Two processes rate tables that share an agent at the same moment (PostgreSQL, READ
COMMITTED): the second update waits for the first and builds on it — no game is lost."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import create_engine, insert, select

from cogleague.server.league_schema import agents, ratings
from cogleague.server.ratings import apply_rating
from cogleague.server.store import accounts, metadata

pytestmark = pytest.mark.postgres


def test_a_rating_update_waits_for_the_one_in_flight(pg_cluster: Any) -> None:
    url = pg_cluster.new_database().replace("postgresql://", "postgresql+psycopg://")
    engine = create_engine(url)
    metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(insert(accounts).values(id=1, name="op", key_digest="k", role="operator",
                                             created_at=0.0))
        conn.execute(insert(agents), [
            {"id": a, "name": f"a{a}", "version": 1, "current": True, "account_id": 1,
             "kind": "baseline", "games": "[]", "cap": 1, "description": "", "state": "active",
             "tokens_used": 0, "created_at": 0.0} for a in (1, 2, 3)])
        apply_rating(conn, "s", "g", "t0", [1, 2, 3], [3.0, 2.0, 1.0])  # rows exist: 1 game

    first = engine.connect()
    first.begin()
    apply_rating(first, "s", "g", "t1", [1, 2], [1.0, 0.0])  # holds agent 1 and 2 until commit
    done = threading.Event()

    def second() -> None:
        with engine.begin() as conn:
            apply_rating(conn, "s", "g", "t2", [1, 3], [1.0, 0.0])
        done.set()

    thread = threading.Thread(target=second)
    thread.start()
    assert not done.wait(1.0), "the second update read agent 1 while the first held it"
    first.commit()
    first.close()
    thread.join(30)
    assert done.is_set()
    with engine.connect() as conn:
        games = dict(conn.execute(select(ratings.c.agent_id, ratings.c.games)).all())
    engine.dispose()
    assert games == {1: 3, 2: 2, 3: 2}
