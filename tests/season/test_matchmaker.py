"""The matchmaker's tick on a real SQLite file: what one tick seats, whatever the pool.

An agent's cap is the tables it plays at once, across every game of the season: a tick that
forms tables in several games counts the seats it has just given, not only those that were
busy when the tick began (and the per-hour limit the same way). And the collusion guard holds at
every table formed. The close waits for the rated tables still running, so the final line-ups
are read from every rated table's update. A least-played agent whose only peers within one table
are its own account's still gets a table (the others' from further ahead)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, select, update

from cogleague.league.season import SeasonSettings
from cogleague.server.catalog import Catalog
from cogleague.server.league_schema import (
    agent_presence,
    agents,
    season_seats,
    season_tables,
    seasons,
)
from cogleague.server.matchmaker import Matchmaker, SeasonPlan, Slot
from cogleague.server.store import FINISHED, accounts, make_engine, metadata, tables

AT = 1_000.0
SLOTS = [Slot("dilemma", None, 3, {"rounds_total": 3}),
         Slot("commons", "harvest-open", 3, {"num_players": 3, "rounds": 3})]
BASELINES = {"dilemma": ["tit_for_tat", "always_defect"], "commons": ["steward", "free_rider"]}


def season_db(path: Path, entrants: list[dict[str, Any]], fill_after_s: float = 30.0,
              per_hour: int = 600) -> tuple[Any, Matchmaker]:
    """A season in its running phase, the operator's baselines of both games, and
    `entrants` (remote agents online now: name, account, cap, games)."""
    engine = make_engine(f"sqlite:///{path}")
    metadata.create_all(engine)
    with engine.begin() as conn:
        owners = sorted({e["account"] for e in entrants} | {"operator"})
        for i, name in enumerate(owners, 1):
            conn.execute(insert(accounts).values(id=i, name=name, key_digest=f"k{i}",
                                                 role="operator" if name == "operator"
                                                 else "player", created_at=0.0))
        ids = {name: i for i, name in enumerate(owners, 1)}
        rows = [dict(name=e["name"], account_id=ids[e["account"]], kind="remote",
                     games=json.dumps(e["games"]), cap=e["cap"], baseline=None)
                for e in entrants]
        rows += [dict(name=f"{game}-{b}", account_id=ids["operator"], kind="baseline",
                      games=json.dumps([game]), cap=1000, baseline=b)
                 for game, names in BASELINES.items() for b in names]
        for row in rows:
            agent_id = conn.execute(insert(agents).values(
                version=1, current=True, description="", state="active", tokens_used=0,
                created_at=0.0, **row)).inserted_primary_key[0]
            if row["kind"] == "remote":
                conn.execute(insert(agent_presence).values(agent_id=agent_id, node="n1",
                                                           until=AT + 60, since=AT - 60))
        conn.execute(insert(seasons).values(id="s", config_text="", phase="running",
                                            started_at=0.0, tables_made=0, final_made=0,
                                            version=0))
    plan = SeasonPlan("s", SeasonSettings(tables=1000, max_running=50,
                                          fill_after_s=fill_after_s,
                                          max_tables_per_hour=per_hour),
                      SLOTS, seed=7, operator_id=ids["operator"])
    return engine, Matchmaker(plan, Catalog())


def tick(engine: Any, mm: Matchmaker) -> list[tuple[str, int, int]]:
    """One tick; the seats it gave: (table, agent id, account id)."""
    with engine.begin() as conn:
        made = mm.tick(conn, AT)
        rows = conn.execute(select(season_seats.c.table_id, agents.c.id, agents.c.account_id,
                                   agents.c.kind).join(agents, agents.c.id ==
                                                       season_seats.c.agent_id)).all()
    assert {r.table_id for r in rows} == set(made)
    return [(r.table_id, r.id, r.account_id) for r in rows if r.kind != "baseline"]


def caps(engine: Any) -> dict[int, int]:
    with engine.connect() as conn:
        return dict(conn.execute(select(agents.c.id, agents.c.cap)).all())


def test_a_tick_over_two_games_keeps_each_agent_within_its_cap(tmp_path: Path) -> None:
    # three agents of one table each, entered in both games: one tick seats each at most once
    # (the second game's candidates are read after the first game's table took them)
    entrants = [dict(name=n, account=n, cap=1, games=["dilemma", "commons"])
                for n in ("ann", "ben", "cat")]
    engine, mm = season_db(tmp_path / "s.db", entrants)
    seats = tick(engine, mm)
    per_agent = Counter(agent for _, agent, _ in seats)
    assert seats and max(per_agent.values()) == 1, per_agent


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 3),
                          st.sampled_from([["dilemma"], ["commons"], ["dilemma", "commons"]])),
                min_size=1, max_size=9),
       st.booleans(), st.sampled_from([1, 2, 600]))
def test_a_tick_never_seats_past_a_cap_or_an_account_twice(
        tmp_path: Path, pool: list[tuple[int, int, list[str]]], impatient: bool,
        per_hour: int) -> None:
    entrants = [dict(name=f"a{i}", account=f"acct{account}", cap=cap, games=games)
                for i, (account, cap, games) in enumerate(pool)]
    path = tmp_path / f"s{len(list(tmp_path.iterdir()))}.db"
    engine, mm = season_db(path, entrants, fill_after_s=0.0 if impatient else 30.0,
                           per_hour=per_hour)
    try:
        seats = tick(engine, mm)
        limit = {a: min(cap, per_hour) for a, cap in caps(engine).items()}
        per_agent = Counter(agent for _, agent, _ in seats)
        assert all(n <= limit[a] for a, n in per_agent.items()), (per_agent, limit)
        per_table: dict[str, list[int]] = {}
        for table, _, account in seats:
            per_table.setdefault(table, []).append(account)
        assert all(len(v) == len(set(v)) for v in per_table.values()), per_table
    finally:
        engine.dispose()


def test_the_final_line_ups_wait_for_the_rated_tables_still_running(tmp_path: Path) -> None:
    # the budget is reached while a rated table plays: registration closes (and the top K is
    # read from the ratings) only once it has finished and updated its agents
    entrants = [dict(name=n, account=n, cap=1, games=["dilemma"]) for n in ("ann", "ben")]
    engine, mm = season_db(tmp_path / "s.db", entrants)
    with engine.begin() as conn:
        lineup = [dict(r) for r in conn.execute(select(agents).where(
            agents.c.kind == "remote")).mappings()]
        lineup.append(dict(conn.execute(select(agents).where(
            agents.c.kind == "baseline")).mappings().first() or {}))
        table = mm.create(conn, SLOTS[0], lineup, "rated", AT)  # rated, still running
        conn.execute(update(seasons).values(tables_made=1000))  # the budget (`tables`) is met

    def closed() -> bool:
        with engine.connect() as conn:
            return conn.execute(select(seasons.c.closed_at)).scalar_one() is not None

    with engine.begin() as conn:
        assert mm.tick(conn, AT) == []  # nothing formed over the budget
    assert not closed()
    with engine.begin() as conn:
        conn.execute(update(tables).where(tables.c.id == table).values(state="finished"))
    with engine.begin() as conn:
        mm.tick(conn, AT + 1)
    assert closed()


def test_a_least_played_agent_whose_peers_are_its_own_account_is_not_starved(
        tmp_path: Path) -> None:
    # alice's two agents trail bob's and cat's by two tables and the baselines are paused: the
    # fair-share ceiling left alice's no peer (the guard refuses the other), so no table formed
    entrants = [dict(name=n, account=a, cap=1, games=["dilemma"])
                for n, a in (("r1", "alice"), ("r2", "bob"), ("r3", "cat"), ("r4", "alice"))]
    engine, mm = season_db(tmp_path / "s.db", entrants)
    with engine.begin() as conn:
        conn.execute(update(agents).where(agents.c.kind == "baseline").values(state="paused"))
        ids = dict(conn.execute(select(agents.c.name, agents.c.id)).all())
        history = {"r1": 2, "r4": 2, "r2": 4, "r3": 4}
        for k in range(4):  # four finished tables: r2 and r3 at each, alice's at two
            conn.execute(insert(tables).values(
                id=f"old{k}", game="dilemma", config="{}", seed=k, info="{}", num_seats=3,
                state=FINISHED, creator_id=1, created_at=0.0, start_deadline=0.0))
            conn.execute(insert(season_tables).values(
                table_id=f"old{k}", season="s", game="dilemma", variant=None, phase="rated",
                created_at=0.0, rated=True))
            conn.execute(insert(season_seats), [
                dict(table_id=f"old{k}", seat=seat, agent_id=ids[name], remote=True,
                     active=False, created_at=0.0)
                for seat, name in enumerate(n for n, t in history.items() if t > k)])
    with engine.begin() as conn:
        made = mm.tick(conn, AT)
        seated_ids = set(conn.execute(select(season_seats.c.agent_id).where(
            season_seats.c.table_id.in_(made))).scalars())
    assert len(made) == 1, made
    assert len(seated_ids & {ids["r1"], ids["r4"]}) == 1, seated_ids
    assert {ids["r2"], ids["r3"]} <= seated_ids, seated_ids


def _dilemma_counts(conn: Any, names: dict[int, str]) -> Counter[str]:
    return Counter(names[a] for a in conn.execute(
        select(season_seats.c.agent_id).join(
            season_tables, season_tables.c.table_id == season_seats.c.table_id).where(
            season_tables.c.game == "dilemma")).scalars())


def test_a_busy_least_played_agent_is_waited_for_one_table_per_fill_after_s(
        tmp_path: Path) -> None:
    """r1 is held at a long table of the other game from the start. Its dilemma peers play
    up to one table ahead of it, then the game waits for it; each `fill_after_s` it stays
    stuck it seats its free entrants at one table and waits again, so their lead grows by at
    most one table per `fill_after_s`. Freed, r1 anchors the next tables until it is back
    within a table of them (the matchmaker's ticks at simulated times, 5 s apart)."""
    fill, step, busy_s = 30.0, 5.0, 150.0
    entrants = [dict(name=f"r{i}", account=f"acct{i}", cap=1, games=["dilemma", "commons"])
                for i in range(1, 6)]
    engine, mm = season_db(tmp_path / "s.db", entrants, fill_after_s=fill)
    with engine.begin() as conn:
        conn.execute(update(agents).where(agents.c.kind == "baseline").values(state="paused"))
        conn.execute(update(agent_presence).values(until=AT + 10_000))
        names = dict(conn.execute(select(agents.c.id, agents.c.name)).all())
        r1 = dict(conn.execute(select(agents).where(agents.c.name == "r1")).mappings().one())
        mates = [dict(r) for r in conn.execute(select(agents).where(
            agents.c.name.in_(["commons-steward", "commons-free_rider"]))).mappings()]
        slow = mm.create(conn, SLOTS[1], [r1, *mates], "rated", AT)
    leads: list[tuple[float, int]] = []
    for k in range(60):
        at = AT + k * step
        with engine.begin() as conn:
            if at - AT >= busy_s:
                conn.execute(update(tables).where(tables.c.id == slow).values(state="finished"))
            mm.tick(conn, at)
            conn.execute(update(tables).where(tables.c.id != slow).values(state="finished"))
            played = _dilemma_counts(conn, names)
        leads.append((at - AT, max(played.values()) - played["r1"]))
    busy = [lead for t, lead in leads if t < busy_s]
    assert max(busy) > 2  # the escape works: the game did not wait for r1 for ever ...
    for t, lead in leads:  # ... and gave no more than one table per fill_after_s
        if t < busy_s:
            assert lead <= 2 + int(t // fill), leads
    assert leads[-1][1] <= 2, leads  # freed, it caught up
