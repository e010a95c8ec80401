"""The full-size season, run by real server processes: ~300 tables over dilemma, Commons and
Ledger. Four remote SDK bots are `cogleague agent run` subprocesses on `/ws/agent`, two model
agents play through the official OpenAI SDK against the local provider test server, three
policy files and the season's nine baselines (five of them Ledger's, which seats eight) fill
the rest. Shared by `test_season_full.py` (which asserts) and `benchmarks/season_full.py`
(which prints the same counts with the season's speed)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from helpers.provider_server import ProviderServer, Reply
from season.season import account, constant_policy, file_b64, post, query, register, season_file
from server.support import OPERATOR_KEY, ServerProcess

BOT = str(Path(__file__).with_name("bots.py")) + ":Either"
GAMES = ["dilemma", "commons", "ledger"]
REMOTE = {"r1": "alice", "r2": "bob", "r3": "carol", "r4": "dan"}
"""Four remote agents on four accounts: r2 and r3 are the same bot, so they must come out level."""
IDENTICAL = [("r2", "r3"), ("p-ledger", "p-ledger-2")]
LEASE = {"lease_ttl_s": 3.0, "lease_renew_s": 0.5}
"""Two processes on one PostgreSQL: a dead one's leases lapse within seconds."""


@dataclass
class FullSeason:
    """What a run left: its store, its league file, the final board and what it cost."""

    db: str
    config: Path
    board: dict[str, Any]
    wall_s: float
    server_cpu_s: float | None  # the one process's CPU (None when a process was killed)
    killed_after: int | None  # tables made when a process was SIGKILLed


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def register_all(url: str, folder: Path) -> dict[str, str]:
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


def _get(url: str, path: str) -> dict[str, Any]:
    return dict(httpx.get(url + path, timeout=60).json())


def explain(db: str, servers: list[ServerProcess]) -> str:
    """What the season's tables, its row, presence and the live processes' logs say."""
    states = query(db, "SELECT t.state, t.owner IS NULL, COUNT(*) FROM season_tables st JOIN "
                       "tables t ON t.id = st.table_id GROUP BY t.state, t.owner IS NULL")
    season = query(db, "SELECT phase, tables_made, final_made FROM seasons")
    presence = query(db, "SELECT agent_id, node, until FROM agent_presence")
    folder = servers[0].log_path.parent
    return f"tables {states}; season {season}; presence {presence}; logs: {logs(folder)}"


def logs(folder: Path, chars: int = 3000) -> str:
    """The tail of each server's and bot's log in `folder` (they hold warnings and errors
    only), so that a failed check says what the processes saw, also where no files are kept."""
    return "; ".join(f"{p.name}: {p.read_text(errors='replace')[-chars:]!r}"
                     for p in sorted(folder.glob("*.log")))


async def run_full_season(folder: Path, db: str, *, tables: int = 300, max_running: int = 12,
                          processes: int = 1, kill_after: int | None = None,
                          timeout_s: float = 600.0) -> FullSeason:
    """Run a season on `processes` servers sharing `db`; with `kill_after`, SIGKILL the first
    once the season has made that many tables (the others take over its tables and lease)."""
    os.environ.setdefault("OPENAI_API_KEY", "test-key")
    files = folder / "files"
    files.mkdir(parents=True, exist_ok=True)
    path = season_file(folder, tables=tables, max_running=max_running, fill_after_s=2.0,
                       final_top=3, ledger=True, token_budget=10**9, refit_every_s=5)
    settings: dict[str, Any] = {"season": str(path), "policy_dir": str(folder / "hosted"),
                                "model_provider": "openai", "model_name": "m",
                                "ping_interval_s": 1.0, **(LEASE if processes > 1 else {})}
    with ProviderServer(lambda _r: Reply('{"action": "cooperate"}')) as provider:
        servers = [ServerProcess(db, folder / f"server{i}.log", **settings,
                                 model_base_url=provider.openai_url) for i in range(processes)]
        procs: list[subprocess.Popen[bytes]] = []
        try:
            for server in servers:
                server.start()
            urls = [s.url for s in servers]
            survivor = urls[-1]
            keys = await register_all(survivor, files)
            cli = str(Path(sys.executable).with_name("cogleague"))
            for i, (name, owner) in enumerate(REMOTE.items()):
                home = urls[i % processes]
                also = [arg for u in urls if u != home for arg in ("--also", u)]
                procs.append(subprocess.Popen(
                    [cli, "agent", "run", BOT, "--server", home, "--key", keys[owner],
                     "--agent", name, *also], stdout=(folder / f"{name}.log").open("ab"),
                    stderr=subprocess.STDOUT))
            deadline = time.monotonic() + 60
            while sum(bool(a.get("online")) for a in (await asyncio.to_thread(
                    _get, survivor, "/agents"))["agents"]) < len(REMOTE):
                if time.monotonic() > deadline:
                    raise AssertionError("the remote agents did not come online in 60 s: "
                                         + explain(db, servers))
                await asyncio.sleep(0.25)
            pid = servers[0].proc.pid if servers[0].proc is not None else 0
            cpu0, t0 = cpu_s(pid), time.monotonic()
            for name, owner in REMOTE.items():
                await post(survivor, keys[owner], f"/agents/{name}/resume")
            killed: int | None = None
            deadline = time.monotonic() + timeout_s
            while not (board := await asyncio.to_thread(
                    _get, survivor, "/leagues/ci-season/standings"))["frozen"]:
                if kill_after is not None and killed is None \
                        and board["tables_made"] >= kill_after:
                    servers[0].kill()
                    killed = board["tables_made"]
                if time.monotonic() > deadline:
                    raise AssertionError(f"the season did not end in {timeout_s:g} s: "
                                         + explain(db, servers))
                await asyncio.sleep(0.5)
            wall = time.monotonic() - t0
            cpu = cpu_s(pid) - cpu0 if killed is None and processes == 1 else None
        finally:
            for p in procs:
                p.send_signal(signal.SIGINT)
            for p in procs:
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
            for server in servers:
                server.stop()
    return FullSeason(db, path, board, wall, cpu, killed)


def same_population(season: FullSeason, folder: Path) -> Path:
    """The season's league file with its entrants added as offline policies, so that an
    offline league ranks the scripted policies among the opponents they met live: the
    remote bots as the same bot class, the policy agents as their files, and the model
    agents (whose provider answers "cooperate" every turn) as the constant cooperator. A
    policy's score depends on whom it meets (in Ledger, grim and mirror trade places between
    the baselines alone and this field), so only the same field can be held to one order."""
    coop, fair = folder / "files" / "coop.npz", folder / "files" / "ledger.npz"
    entrants = [(name, f'bot = "{BOT}"', GAMES) for name in REMOTE]
    entrants += [(name, f'policy = "{coop}"', ["dilemma"]) for name in ("p-coop", "m-fair",
                                                                      "m-wary")]
    entrants += [(name, f'policy = "{fair}"', ["ledger"]) for name in ("p-ledger",
                                                                     "p-ledger-2")]
    text = season.config.read_text(encoding="utf-8") + "".join(
        f'\n[[policies]]\nname = "{name}"\n{ref}\ngames = {json.dumps(games)}\n'
        for name, ref, games in entrants)
    path = folder / "offline.toml"
    path.write_text(text, encoding="utf-8")
    return path


def counts(db: str) -> dict[str, Any]:
    """What the full season must get right, counted: every table finished and rated once,
    no account met itself, one league episode per table, and fair shares: agents entered in
    the same games with the same cap are owed as many tables (`alike_share`: the worst
    distance from their mean); `per_game_share` is the same within each game."""
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
    games_rated = {int(a): int(n) for a, n in query(
        db, "SELECT agent_id, SUM(games) FROM ratings GROUP BY agent_id")}
    seats_rated = {int(a): int(n) for a, n in query(
        db, "SELECT ss.agent_id, COUNT(DISTINCT ss.table_id) FROM season_seats ss JOIN "
            "season_tables st ON "
            "st.table_id = ss.table_id WHERE st.outcome = 'rated' GROUP BY ss.agent_id")}
    alike: dict[str, dict[str, int]] = {}  # agents entered in the same games with one cap
    for name, entered, cap in query(db, "SELECT name, games, cap FROM agents WHERE kind != "
                                        "'baseline' AND current"):
        key = f"{','.join(sorted(json.loads(entered)))} cap {cap}"
        alike.setdefault(key, {})[name] = int(played.get(name, 0))
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
        "rating_games_off": sum(games_rated.get(a, 0) != n for a, n in seats_rated.items())
        + sum(a not in seats_rated for a in games_rated if games_rated[a]),
        "self_meetings": sum(len(v) != len(set(v)) for v in owners.values()),
        "episodes_recorded": int(episodes[0][0]),
        "remote_tables": {n: played.get(n, 0) for n in REMOTE},
        "remote_worst_share": max(abs(played.get(n, 0) - mean) / mean for n in REMOTE)
        if mean else None,
        "alike_tables": alike,
        "alike_share": {k: max(abs(n - statistics.mean(v.values())) / statistics.mean(
            v.values()) for n in v.values()) for k, v in sorted(alike.items())},
        "per_game_share": {g: max(abs(n - statistics.mean(v.values())) / statistics.mean(
            v.values()) for n in v.values()) for g, v in sorted(per_entrant.items())},
        "per_game_tables": per_entrant}
