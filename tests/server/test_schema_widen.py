"""A seat's `baseline` holds `policy:PATH` of a hosted policy file, which on PostgreSQL (it
enforces VARCHAR lengths; SQLite does not) once failed a whole matchmaker tick when the
server's policy folder had a long path. A database made with the narrower column is widened
when the server opens it, and keeps every row it held."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import insert, select, text

from cogleague.server.store import Store, accounts, seats, tables

pytestmark = pytest.mark.postgres
LONG = "policy:/" + "deep/" * 70 + "agent.npz"  # 366 characters


def _table(conn: Any) -> None:
    acct = conn.execute(insert(accounts).values(name="op", key_digest="d" * 64,
                                                role="operator", created_at=0.0)
                        ).inserted_primary_key[0]
    conn.execute(insert(tables).values(
        id="t_1", game="toy", config="{}", seed=1, stake=0, info="{}", num_seats=2,
        state="running", creator_id=acct, created_at=0.0, start_deadline=0.0))


def _seat(seat: int, baseline: str) -> dict[str, Any]:
    return {"table_id": "t_1", "seat": seat, "account_id": None, "kind": "scripted",
            "policy_name": f"p{seat}", "baseline": baseline, "token_digest": "",
            "joined_at": 0.0}


def test_an_older_narrow_column_is_widened_and_keeps_its_rows(pg_cluster: Any) -> None:
    store = Store(pg_cluster.new_database())
    try:
        store.create_schema()
        with store.engine.begin() as conn:
            conn.execute(text("ALTER TABLE seats ALTER COLUMN baseline TYPE VARCHAR(64)"))
            _table(conn)
            conn.execute(insert(seats).values(**_seat(0, "tit_for_tat")))
        with pytest.raises(Exception, match="too long"), store.engine.begin() as conn:
            conn.execute(insert(seats).values(**_seat(1, LONG)))

        store.create_schema()  # what a server does when it opens the database
        with store.engine.begin() as conn:
            conn.execute(insert(seats).values(**_seat(1, LONG)))
            held = conn.execute(select(seats.c.seat, seats.c.baseline)
                                .order_by(seats.c.seat)).all()
        assert [tuple(r) for r in held] == [(0, "tit_for_tat"), (1, LONG)]
    finally:
        store.close()
