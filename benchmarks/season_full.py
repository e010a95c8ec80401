"""The full-size season: ~300 tables over dilemma, Commons and Ledger, run by a real server.

    python benchmarks/season.py --full [--tables 300] [--max-running 12] [--keep DIR]

One `cogleague serve` process (uvicorn on loopback, SQLite file) runs the season; four remote
SDK bots are `cogleague agent run` subprocesses on `/ws/agent`; two model agents play through
the official OpenAI SDK against the local provider test server (`tests/helpers`); three policy
files and the season's nine baselines (five of them Ledger's, which seats eight) fill the rest.
It prints tables per minute, wall and server CPU ms per table, and the correctness counts the
season test asserts on a small season: every table finished and rated once, no account met
itself, the league store holds one episode per table, the remote agents' fair share.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from helpers.provider_server import ProviderServer, Reply  # noqa: E402
from season.season import (  # noqa: E402
    account,
    constant_policy,
    file_b64,
    post,
    query,
    register,
    season_file,
)
from server.support import OPERATOR_KEY, ServerProcess  # noqa: E402

BOT = str(ROOT / "tests" / "season" / "bots.py") + ":Either"
GAMES = ["dilemma", "commons", "ledger"]
REMOTE = {"r1": "alice", "r2": "bob", "r3": "carol", "r4": "dan"}


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _register_all(url: str, folder: Path) -> dict[str, str]:
    keys = {n: await account(url, OPERATOR_KEY, n)
            for n in [*REMOTE.values(), "dave", "erin", "fay"]}
    for name, owner in REMOTE.items():  # paused until all four are online
        await register(url, keys[owner], name=name, games=GAMES, cap=3)
        await post(url, keys[owner], f"/agents/{name}/pause")
    coop = constant_policy(folder / "coop.npz", "dilemma", 0)
    fair = constant_policy(folder / "ledger.npz", "ledger", 0)
    await register(url, keys["dave"], name="p-coop", kind="policy", games=["dilemma"],
                   policy_file=file_b64(coop), cap=3)
    await register(url, keys["dave"], name="p-ledger", kind="policy", games=["ledger"],
                   policy_file=file_b64(fair), cap=3)
    await register(url, keys["fay"], name="p-ledger-2", kind="policy", games=["ledger"],
                   policy_file=file_b64(fair), cap=3)
    for name in ("m-fair", "m-wary"):
        await register(url, keys["erin"], name=name, kind="model", games=["dilemma"],
                       prompt="Cooperate while the others do.", model="m", cap=2)
    return keys


def _online(url: str) -> int:
    return sum(bool(a.get("online")) for a in httpx.get(f"{url}/agents", timeout=30)
               .json()["agents"])


def _phase(url: str) -> dict[str, Any]:
    return dict(httpx.get(f"{url}/leagues/ci-season/standings", timeout=60).json())


def _counts(db: str) -> dict[str, Any]:
    """What the season test asserts, counted instead."""
    tables = query(db, "SELECT st.table_id, st.game, st.phase, st.rated, st.outcome, t.state "
                       "FROM season_tables st JOIN tables t ON t.id = st.table_id")
    history = dict(query(db, "SELECT table_id, COUNT(*) FROM rating_history "
                             "GROUP BY table_id"))
    seated = dict(query(db, "SELECT table_id, COUNT(DISTINCT agent_id) FROM season_seats "
                            "GROUP BY table_id"))
    rated = [t.table_id for t in tables if t.outcome == "rated"]
    owners: dict[str, list[int]] = {}
    for r in query(db, "SELECT ss.table_id, a.account_id, a.kind FROM season_seats ss "
                       "JOIN agents a ON a.id = ss.agent_id"):
        if r.kind != "baseline":
            owners.setdefault(r.table_id, []).append(r.account_id)
    played = dict(query(db, "SELECT a.name, COUNT(*) FROM season_seats ss JOIN agents a "
                            "ON a.id = ss.agent_id JOIN season_tables st ON "
                            "st.table_id = ss.table_id WHERE st.phase = 'rated' "
                            "GROUP BY a.name"))
    per_entrant: dict[str, dict[str, int]] = {}
    for game, name, n in query(db, "SELECT st.game, a.name, COUNT(*) FROM season_seats ss "
                                   "JOIN agents a ON a.id = ss.agent_id JOIN season_tables st "
                                   "ON st.table_id = ss.table_id WHERE st.phase = 'rated' AND "
                                   "a.kind != 'baseline' GROUP BY st.game, a.name"):
        per_entrant.setdefault(game, {})[name] = int(n)
    episodes = query(db, "SELECT COUNT(*) FROM league_episodes WHERE league = 'ci-season'")
    outcomes: dict[str, int] = {}
    per_game: dict[str, int] = {}
    for t in tables:
        outcomes[t.outcome or "none"] = outcomes.get(t.outcome or "none", 0) + 1
        per_game[t.game] = per_game.get(t.game, 0) + 1
    mean = statistics.mean(played.get(n, 0) for n in REMOTE)
    return {
        "tables": len(tables), "per_game": per_game, "outcomes": outcomes,
        "not_finished": sum(t.state != "finished" for t in tables),
        "not_rated_once": sum(not t.rated for t in tables)
        + sum(history.get(t, 0) != seated[t] for t in rated)
        + sum(t not in rated for t in history),
        "self_meetings": sum(len(v) != len(set(v)) for v in owners.values()),
        "episodes_recorded": int(episodes[0][0]),
        "remote_tables": {n: played.get(n, 0) for n in REMOTE},
        "remote_worst_share": max(abs(played.get(n, 0) - mean) / mean for n in REMOTE)
        if mean else None,
        "per_game_share": {g: max(abs(n - statistics.mean(v.values())) / statistics.mean(
            v.values()) for n in v.values()) for g, v in sorted(per_entrant.items())},
        "per_game_tables": per_entrant}


async def run(tables: int, max_running: int, folder: Path) -> None:
    os.environ.setdefault("OPENAI_API_KEY", "benchmark-key")
    db = f"sqlite:///{folder / 'season.db'}"
    hosted = folder / "hosted"
    files = folder / "files"
    files.mkdir(parents=True, exist_ok=True)
    path = season_file(folder, tables=tables, max_running=max_running, fill_after_s=2.0,
                       final_top=3, ledger=True)
    with ProviderServer(lambda _r: Reply('{"action": "cooperate"}')) as provider:
        server = ServerProcess(db, folder / "server.log", season=str(path),
                               policy_dir=str(hosted), model_provider="openai",
                               model_name="m", model_base_url=provider.openai_url,
                               ping_interval_s=1.0).start()
        assert server.proc is not None
        procs: list[subprocess.Popen[bytes]] = []
        try:
            keys = await _register_all(server.url, files)
            cli = str(Path(sys.executable).with_name("cogleague"))
            for name, owner in REMOTE.items():
                procs.append(subprocess.Popen(
                    [cli, "agent", "run", BOT, "--server", server.url, "--key", keys[owner],
                     "--agent", name], stdout=(folder / f"{name}.log").open("ab"),
                    stderr=subprocess.STDOUT))
            while _online(server.url) < len(REMOTE):
                await asyncio.sleep(0.25)
            cpu0, t0 = _cpu_s(server.proc.pid), time.monotonic()
            for name, owner in REMOTE.items():
                await post(server.url, keys[owner], f"/agents/{name}/resume")
            while (board := await asyncio.to_thread(_phase, server.url))["phase"] != "ended":
                await asyncio.sleep(1.0)
            wall, cpu = time.monotonic() - t0, _cpu_s(server.proc.pid) - cpu0
        finally:
            for p in procs:
                p.send_signal(signal.SIGINT)
            for p in procs:
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
            server.stop()
    counts = _counts(db)
    n = counts["tables"]
    kinds = dict(query(db, "SELECT kind, COUNT(*) FROM agents GROUP BY kind"))
    print(f"full season: {n} tables ({json.dumps(counts['per_game'])}), agents "
          f"{json.dumps(kinds)} (the remote ones `cogleague agent run` subprocesses), max_running "
          f"{max_running}, SQLite {db}")
    print(f"  throughput   {n / wall * 60:7.1f} tables/minute ({wall:.1f} s wall)")
    print(f"  wall         {wall / n * 1000:7.1f} ms per table")
    print(f"  server CPU   {cpu / n * 1000:7.1f} ms per table (one process: tables, league, "
          "HTTP, sockets)")
    print(f"  outcomes     {json.dumps(counts['outcomes'])}")
    for key in ("not_finished", "not_rated_once", "self_meetings"):
        print(f"  {key:<13}{counts[key]:>7}  (must be 0)")
    print(f"  episodes     {counts['episodes_recorded']:>7}  recorded in the league store "
          f"(must be {n})")
    share = counts["remote_worst_share"]
    print(f"  fair share   remote agents' rated tables {json.dumps(counts['remote_tables'])}; "
          f"worst {share:.1%} from their mean (must be <= 15%)")
    print("  per game     every non-baseline agent's rated tables in the game, worst from the "
          "game's mean: " + ", ".join(f"{g} {v:.1%}" for g, v in
                                      counts["per_game_share"].items()))
    for name, reason in query(db, "SELECT name, reason FROM agents WHERE state = 'paused'"):
        print(f"  paused       {name}: {reason} (fewer tables than its game's mean)")
    print(f"  board        phase {board['phase']}, tables made {board['tables_made']}, "
          f"final {board['final_made']}")


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
