"""Season benchmark: the server CPU the standing league costs per finished table — one
matchmaker tick's share plus the table's OpenSkill update, in the transaction that would end
it — with 1,000 registered agents online, beside the CPU of playing the table itself.

    python benchmarks/season.py [--agents 1000] [--tables 400] [--game dilemma] [--db FILE]
    python benchmarks/season.py --full [--tables 300]   # a whole season on a server: see
                                                         # season_full.py

Everything is the server's own code on a real SQLite file (`server/matchmaker.py`,
`server/ratings.py`): agents, presence rows and baselines as the server writes them; each
formed table is played headless with the game's baselines (its own CPU, measured apart),
then rated and marked finished so its seats free up. The target is <= 5 ms per table.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, insert, select, update

from cogleague.core.episode import play_headless
from cogleague.league.season import SeasonSettings
from cogleague.seats.factory import make_seats
from cogleague.server.app import bootstrap
from cogleague.server.catalog import Catalog
from cogleague.server.league_schema import agent_presence, agents
from cogleague.server.lineup import build_game
from cogleague.server.matchmaker import Matchmaker, SeasonPlan, Slot
from cogleague.server.ratings import rate_finished
from cogleague.server.store import Store, accounts, seat_rows, tables

TARGET_MS = 5.0


def _setup(store: Store, n: int, games: list[str]) -> int:
    def run(conn: Connection) -> int:
        operator = conn.execute(select(accounts.c.id).where(accounts.c.role == "operator")
                                ).scalar_one()
        at = time.time()
        conn.execute(insert(accounts), [{"name": f"acct{i}", "role": "player",
                                         "key_digest": f"d{i}", "created_at": at}
                                        for i in range(n)])
        ids = conn.execute(select(accounts.c.id).where(accounts.c.role == "player")
                           .order_by(accounts.c.id)).scalars().all()
        conn.execute(insert(agents), [
            {"name": f"agent{i}", "version": 1, "current": True, "account_id": a,
             "kind": "remote", "games": json.dumps(games), "cap": 2, "description": "",
             "state": "active", "created_at": at, "tokens_used": 0}
            for i, a in enumerate(ids)])
        agent_ids = conn.execute(select(agents.c.id)).scalars().all()
        conn.execute(insert(agent_presence), [{"agent_id": a, "node": "bench",
                                               "until": at + 10**6, "since": at}
                                              for a in agent_ids])
        return int(operator)
    return store.tx_sync(run)


def _finish(conn: Connection, table_id: str, results: dict[str, Any]) -> float:
    """The table's own end (not counted), then the league's rating update (its CPU)."""
    conn.execute(update(tables).where(tables.c.id == table_id).values(
        state="finished", finished_at=time.time(), results=json.dumps(results)))
    t = time.process_time()
    rate_finished(conn, table_id, results, [])
    return time.process_time() - t


def main() -> None:
    if "--full" in sys.argv[1:]:
        import season_full

        season_full.main([a for a in sys.argv[1:] if a != "--full"])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--agents", type=int, default=1000)
    ap.add_argument("--tables", type=int, default=400)
    ap.add_argument("--game", default="dilemma")
    ap.add_argument("--db", default=None)
    args = ap.parse_args()
    path = Path(args.db or Path(tempfile.mkdtemp(prefix="season-bench-")) / "season.db")
    store = Store(f"sqlite:///{path}")
    bootstrap(store, "bench-operator-key-0123456789")
    catalog = Catalog({}, None)
    info = catalog.get(args.game)
    seats_n = info.seats_of(None, {})
    operator = _setup(store, args.agents, [args.game])
    from cogleague.server.league_schema import seasons

    store.tx_sync(lambda c: c.execute(insert(seasons).values(
        id="bench", config_text="", phase="running", started_at=time.time(), tables_made=0,
        final_made=0, version=0)))
    settings = SeasonSettings(tables=10**6, max_running=50, fill_after_s=3600.0)
    mm = Matchmaker(SeasonPlan("bench", settings, [Slot(args.game, None, seats_n)], 1,
                               operator), catalog)
    baselines = list(info.default_lineup(None))[:seats_n]
    match_cpu = rate_cpu = play_cpu = 0.0
    done = 0
    while done < args.tables:
        t = time.process_time()
        made = store.tx_sync(mm.tick, time.time())
        match_cpu += time.process_time() - t
        if not made:
            raise SystemExit("the matchmaker formed no table (check --agents and the caps)")
        for table_id in made:
            row = store.tx_sync(lambda c, i=table_id: c.execute(
                select(tables).where(tables.c.id == i)).mappings().one())
            seat_list = store.tx_sync(seat_rows, table_id)
            t = time.process_time()
            game = build_game(info, None, {}, row["seed"], None)
            outcome = play_headless(game, make_seats(game, baselines))
            play_cpu += time.process_time() - t
            rate_cpu += store.tx_sync(_finish, table_id, outcome.results)
            assert len(seat_list) == seats_n
            done += 1
    store.close()
    per = (match_cpu + rate_cpu) / done * 1000
    print(f"season benchmark: {args.agents} agents online, {done} {args.game} tables of "
          f"{seats_n} seats, SQLite {path}")
    print(f"  matchmaking  {match_cpu / done * 1000:7.2f} ms CPU per table")
    print(f"  rating       {rate_cpu / done * 1000:7.2f} ms CPU per table (in the finish "
          "transaction, its commit not counted)")
    print(f"  together     {per:7.2f} ms CPU per table (target <= {TARGET_MS:g} ms): "
          f"{'met' if per <= TARGET_MS else 'NOT met'}")
    print(f"  the table    {play_cpu / done * 1000:7.2f} ms CPU per table (headless play, "
          "baselines)")


if __name__ == "__main__":
    main()
