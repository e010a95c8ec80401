"""The full-size season: ~300 tables over dilemma, Commons and Ledger, run by a real server.

    python benchmarks/season.py --full [--tables 300] [--max-running 12] [--keep DIR]

One `cogleague serve` process (uvicorn on loopback, SQLite file) runs the season; four remote
SDK bots are `cogleague agent run` subprocesses on `/ws/agent`; two model agents play through
the official OpenAI SDK against the local provider test server (`tests/helpers`); three policy
files and the season's nine baselines (five of them Ledger's, which seats eight) fill the rest.
It prints tables per minute, wall and server CPU ms per table, and the counts
`tests/season/test_season_full.py` asserts on the same season (`tests/season/full.py` runs
both): every table finished and rated once, no account met itself, the league store holds one
episode per table, every entrant's share of its games' tables.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from season.full import REMOTE, counts, run_full_season  # noqa: E402
from season.season import query  # noqa: E402


async def run(tables: int, max_running: int, folder: Path) -> None:
    db = f"sqlite:///{folder / 'season.db'}"
    season = await run_full_season(folder, db, tables=tables, max_running=max_running)
    wall, cpu, board = season.wall_s, season.server_cpu_s, season.board
    assert cpu is not None
    found = counts(db)
    n = found["tables"]
    kinds = dict(query(db, "SELECT kind, COUNT(*) FROM agents GROUP BY kind"))
    print(f"full season: {n} tables ({json.dumps(found['per_game'])}), agents "
          f"{json.dumps(kinds)} (the remote ones `cogleague agent run` subprocesses), max_running "
          f"{max_running}, SQLite {db}")
    print(f"  throughput   {n / wall * 60:7.1f} tables/minute ({wall:.1f} s wall)")
    print(f"  wall         {wall / n * 1000:7.1f} ms per table")
    print(f"  server CPU   {cpu / n * 1000:7.1f} ms per table (one process: tables, league, "
          "HTTP, sockets)")
    print(f"  outcomes     {json.dumps(found['outcomes'])}")
    for key in ("not_finished", "not_rated_once", "rating_games_off", "self_meetings"):
        print(f"  {key:<13}{found[key]:>7}  (must be 0)")
    print(f"  episodes     {found['episodes_recorded']:>7}  recorded in the league store "
          f"(must be {n})")
    share = found["remote_worst_share"]
    print(f"  fair share   remote agents' rated tables {json.dumps(found['remote_tables'])}; "
          f"worst {share:.1%} from their mean (must be <= 15%)")
    print("  per game     every non-baseline agent's rated tables in the game, worst from the "
          "game's mean (must be <= 15%): " + ", ".join(
              f"{g} {v:.1%}" for g, v in found["per_game_share"].items()))
    for name, reason in query(db, "SELECT name, reason FROM agents WHERE state = 'paused'"):
        print(f"  paused       {name}: {reason}")
    print(f"  board        phase {board['phase']}, tables made {board['tables_made']}, "
          f"final {board['final_made']}; {len(REMOTE)} remote agents")


def main(argv: list[str]) -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=300)
    ap.add_argument("--max-running", type=int, default=12)
    ap.add_argument("--keep", type=Path, default=None, help="keep the database and logs here")
    args = ap.parse_args(argv)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="season-full-"))
    folder.mkdir(parents=True, exist_ok=True)
    asyncio.run(run(args.tables, args.max_running, folder))


if __name__ == "__main__":
    main(sys.argv[1:])
