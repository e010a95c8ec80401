"""Availability under abuse: honest play on one server while an attacker does one thing at a time.

Starts the table server (`server/serving.py`, as `cogleague serve` runs it; SQLite in a temp
dir) and, for each scenario, plays the same honest tables (dilemma, 4 SDK bots each) while an
attacker process runs the scenario against the same server:

    baseline        nothing
    standings       GET /api/standings in 8 loops
    tables          GET /tables in 8 loops
    chunked         4 chunked uploads of 100 MB at once (no Content-Length)
    nested          2,000 WebSocket frames nested 5,000 deep
    half_open       300 partial request heads held from another loopback address
    unknown_ids     joins naming unknown 8 KB table ids (--unknown, default 5,000)
    spectators      200 spectators joining the honest tables mid-play

Per scenario it prints honest moves/s and the p99 from `your_turn` to `ack` (and the ratio to
the baseline), the p99 of an honest client's `GET /healthz` polled meanwhile, the server's
RSS and open files at the end, log bytes added, tracebacks in the log, honest tables whose
results differ from the baseline's, and tables not finished.

    .venv/bin/python benchmarks/abuse_availability.py
    .venv/bin/python benchmarks/abuse_availability.py --scenarios baseline,chunked,nested

`run(args)` is the entry point for a driver that adds these scenarios to its own report
(`add_arguments(parser)` declares the options).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

OPERATOR_KEY = "bench-operator-key-0123456789"
SCENARIOS = ("baseline", "standings", "tables", "chunked", "nested", "half_open",
             "unknown_ids", "spectators")
SERVE = """\
import json, sys
from cogleague.server import listen, serving
from cogleague.server.app import create_app
from cogleague.server.settings import Settings
settings = Settings(**json.loads(sys.argv[1]))
serving.run(create_app(settings), settings, listen.bind("127.0.0.1", int(sys.argv[2])),
            "warning")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(workdir: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    port = free_port()
    log = workdir / "server.log"
    settings = {"db_url": f"sqlite:///{workdir / 'server.db'}", "operator_key": OPERATOR_KEY,
                "max_open_tables_per_account": 1000, "moves_per_second": 1000.0,
                "move_burst": 1000}
    proc = subprocess.Popen([sys.executable, "-c", SERVE, json.dumps(settings), str(port)],
                            stdout=log.open("ab"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url, log
        time.sleep(0.1)
    raise RuntimeError(log.read_text()[-2000:])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


# -- honest play ---------------------------------------------------------------------------------
async def _account(url: str, name: str, credits: int = 0) -> str:
    async with httpx.AsyncClient(base_url=url, headers={
            "Authorization": f"Bearer {OPERATOR_KEY}"}) as c:
        r = await c.post("/accounts", json={"name": name, "credits": credits})
        r.raise_for_status()
        return str(r.json()["api_key"])


async def honest(url: str, tag: str, tables: int, rounds: int, timeout_s: float
                 ) -> dict[str, Any]:
    """`tables` dilemma tables of 4 SDK bots; moves/s, p99 turn→ack, results by seed."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    from dilemma_bot import PromiseKeeper

    from cogleague.client import LobbyClient, play_seat

    creator = await _account(url, f"c{tag}")
    sessions = []
    asked: dict[tuple[str, int], float] = {}
    latencies: list[float] = []
    ids = []
    for t in range(tables):
        async with LobbyClient(url, creator) as lobby:
            table = await lobby.create_table("dilemma", config={"rounds_total": rounds},
                                             seed=1000 + t, pacing=False)
        tid = table["id"]
        ids.append(tid)
        for seat in range(4):
            key = await _account(url, f"b{tag}x{t}x{seat}")
            async with LobbyClient(url, key) as lobby:
                joined = await lobby.join(tid, "remote", seat=seat, name=f"bot{seat}")

            def on_frame(frame: dict[str, Any], k: tuple[str, int] = (tid, seat)) -> None:
                if frame["type"] == "your_turn":
                    asked[k] = time.monotonic()
                elif frame["type"] == "ack" and k in asked:
                    latencies.append(time.monotonic() - asked.pop(k))

            sessions.append(play_seat(PromiseKeeper(), url, tid, seat, joined["token"],
                                      on_frame=on_frame))
    tasks = [asyncio.create_task(s) for s in sessions]
    await asyncio.sleep(0.5)
    t0 = time.monotonic()
    async with LobbyClient(url, creator) as lobby:
        for tid in ids:
            await lobby.start(tid)
    _done, pending = await asyncio.wait(tasks, timeout=timeout_s)
    took = time.monotonic() - t0
    for task in pending:
        task.cancel()
    results: dict[int, Any] = {}
    stuck = 0
    async with LobbyClient(url) as lobby:
        for t, tid in enumerate(ids):
            doc = await lobby.table(tid)
            if doc["state"] != "finished":
                stuck += 1
                continue
            r = await lobby.results(tid)
            results[t] = {k: v for k, v in r.items() if k != "generated_at"}
    latencies.sort()
    p99 = latencies[int(0.99 * (len(latencies) - 1))] if latencies else float("nan")
    return {"moves_per_s": len(latencies) / took if took else 0.0, "p99_ms": p99 * 1000,
            "results": results, "stuck": stuck, "ids": ids}


async def healthz_latencies(url: str, stop: asyncio.Event) -> list[float]:
    """An honest client's `GET /healthz` every 50 ms until `stop`: each answer's seconds
    (a failure counts as infinite, so it shows in the p99)."""
    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=5.0) as c:
        while not stop.is_set():
            t0 = time.monotonic()
            try:
                ok = (await c.get("/healthz")).status_code == 200
            except httpx.HTTPError:
                ok = False
            latencies.append(time.monotonic() - t0 if ok else float("inf"))
            await asyncio.sleep(0.05)
    return latencies


# -- attacks (each in its own process, so the honest clients' loop is not the attacker's) ------
async def _standings(url: str, stop: float) -> str:
    n = 0
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        async def loop() -> None:
            nonlocal n
            while time.monotonic() < stop:
                await c.get("/api/standings")
                n += 1
        await asyncio.gather(*(loop() for _ in range(8)))
    return f"{n} standings reads"


async def _tables(url: str, stop: float) -> str:
    n = 0
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        async def loop() -> None:
            nonlocal n
            while time.monotonic() < stop:
                await c.get("/tables")
                n += 1
        await asyncio.gather(*(loop() for _ in range(8)))
    return f"{n} table lists"


async def _chunked(url: str, stop: float) -> str:
    async def body() -> Any:
        for _ in range(100 * 16):
            yield b"x" * 65536  # 100 MB

    async def one() -> int:
        async with httpx.AsyncClient(base_url=url, timeout=60) as c:
            try:
                r = await c.post("/tables", content=body(), headers={
                    "Authorization": f"Bearer {OPERATOR_KEY}"})
                return r.status_code
            except httpx.HTTPError:
                return 0  # the server answered 413 and closed the connection mid-upload
    codes = await asyncio.gather(*(one() for _ in range(4)))
    return f"uploads answered {sorted(codes)}"


async def _nested(url: str, stop: float, table: str) -> str:
    from websockets.asyncio.client import connect

    frame = "[" * 5000 + "]" * 5000
    errors = 0
    ws_url = url.replace("http://", "ws://") + f"/ws/watch?table={table}"
    async with connect(ws_url, proxy=None, compression=None, max_size=None,
                       ping_interval=None) as ws:
        async def read() -> None:
            nonlocal errors
            with contextlib.suppress(Exception):
                async for raw in ws:
                    errors += json.loads(raw).get("code") == "bad_frame"

        reading = asyncio.create_task(read())
        for _ in range(2000):
            await ws.send(frame)
            await asyncio.sleep(0.02)  # under the frame rate limit
        await asyncio.sleep(1.0)
        reading.cancel()
    return f"{errors} bad_frame errors for 2000 frames"


async def _half_open(url: str, stop: float) -> str:
    port = int(url.rsplit(":", 1)[1])
    counts = {"opened": 0, "refused": 0, "closed": 0}

    async def one() -> None:
        while time.monotonic() < stop:
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", port, local_addr=("127.0.0.2", 0))
            except OSError:
                await asyncio.sleep(0.2)
                continue
            counts["opened"] += 1
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            try:
                data = await asyncio.wait_for(reader.read(4096), max(0.1, stop - time.monotonic()))
                counts["refused" if data.startswith(b"HTTP/1.1 503") else "closed"] += 1
                await asyncio.sleep(0.5)
            except TimeoutError:
                pass
            writer.close()
    await asyncio.gather(*(one() for _ in range(300)))
    return f"{counts}"


async def _unknown_ids(url: str, stop: float, n: int) -> str:
    key = await _account(url, f"u{os.getpid()}")
    codes: dict[int, int] = {}
    async with httpx.AsyncClient(base_url=url, timeout=30,
                                 headers={"Authorization": f"Bearer {key}"}) as c:
        async def loop(k: int) -> None:
            for i in range(k, n, 8):
                r = await c.post(f"/tables/t_{'f' * 8192}{i}/join", json={})
                codes[r.status_code] = codes.get(r.status_code, 0) + 1
        await asyncio.gather(*(loop(k) for k in range(8)))
    return f"answers {codes}"


async def _spectators(url: str, stop: float, tables: list[str]) -> str:
    from websockets.asyncio.client import connect

    ws_base = url.replace("http://", "ws://")
    got = 0

    async def one(i: int) -> None:
        nonlocal got
        await asyncio.sleep(i * 0.005)
        with contextlib.suppress(Exception):
            async with connect(f"{ws_base}/ws/watch?table={tables[i % len(tables)]}",
                               proxy=None, compression=None) as ws:
                async for raw in ws:
                    got += 1
                    if json.loads(raw)["type"] == "end" or time.monotonic() > stop:
                        break
    await asyncio.gather(*(one(i) for i in range(200)))
    return f"{got} frames to 200 spectators"


def _attack(name: str, url: str, duration_s: float, extra: Any, out: Any) -> None:
    stop = time.monotonic() + duration_s
    runs = {"standings": lambda: _standings(url, stop), "tables": lambda: _tables(url, stop),
            "chunked": lambda: _chunked(url, stop), "half_open": lambda: _half_open(url, stop),
            "nested": lambda: _nested(url, stop, extra),
            "unknown_ids": lambda: _unknown_ids(url, stop, extra),
            "spectators": lambda: _spectators(url, stop, extra)}
    try:
        out.put(asyncio.run(runs[name]()))
    except Exception as exc:  # reported, not raised: the scenario's figures still print
        out.put(f"attack failed: {type(exc).__name__}: {exc}")


# -- the driver ------------------------------------------------------------------------------------
def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--scenarios", default=",".join(SCENARIOS),
                    help=f"comma-separated, from {', '.join(SCENARIOS)}")
    ap.add_argument("--honest-tables", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--attack-s", type=float, default=12.0,
                    help="how long the looping attacks run")
    ap.add_argument("--unknown", type=int, default=5000, help="requests of unknown_ids")


async def _scenario(name: str, url: str, pid: int, log: Path, args: argparse.Namespace,
                    baseline: dict[str, Any] | None, idle_table: str) -> dict[str, Any]:
    log_before = log.stat().st_size
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    attacker = None
    note = ""
    if name != "baseline" and name != "spectators":
        extra = idle_table if name == "nested" else args.unknown
        attacker = ctx.Process(target=_attack, args=(name, url, args.attack_s, extra, out))
        attacker.start()
        await asyncio.sleep(1.0)
    if name == "spectators":  # they join the honest tables once those are playing
        play = asyncio.create_task(honest(url, name, args.honest_tables, args.rounds, 120))
        await asyncio.sleep(1.0)
        async with httpx.AsyncClient(base_url=url) as c:
            running = [t["id"] for t in (await c.get("/tables?state=running")).json()["tables"]]
        attacker = ctx.Process(target=_attack, args=(name, url, args.attack_s, running or
                                                     [idle_table], out))
        attacker.start()
        figures = await play
    else:
        stop = asyncio.Event()
        polling = asyncio.create_task(healthz_latencies(url, stop))
        figures = await honest(url, name, args.honest_tables, args.rounds, 120)
        stop.set()
        health = sorted(await polling)
        figures["healthz_p99_ms"] = (health[int(0.99 * (len(health) - 1))] * 1000
                                     if health else float("nan"))
    if attacker is not None:
        await asyncio.get_running_loop().run_in_executor(None, attacker.join, 300)
        note = out.get() if not out.empty() else ""
    added = log.read_bytes()[log_before:]
    changed = 0
    if baseline is not None:
        changed = sum(1 for t, r in figures["results"].items()
                      if baseline["results"].get(t) != r)
    row = {"scenario": name, "moves_per_s": round(figures["moves_per_s"], 1),
           "p99_ms": round(figures["p99_ms"], 1),
           "healthz_p99_ms": round(figures.get("healthz_p99_ms", float("nan")), 1),
           "rss_mb": round(rss_mb(pid), 1),
           "open_files": open_files(pid), "log_bytes": len(added),
           "tracebacks": added.count(b"Traceback"), "results_changed": changed,
           "stuck": figures["stuck"], "attack": note}
    if baseline is not None and baseline["moves_per_s"]:
        row["moves_vs_baseline"] = round(figures["moves_per_s"] / baseline["moves_per_s"], 2)
    row["_figures"] = figures
    return row


async def _run(args: argparse.Namespace) -> list[dict[str, Any]]:
    chosen = [s for s in args.scenarios.split(",") if s]
    unknown = [s for s in chosen if s not in SCENARIOS]
    if unknown:
        raise SystemExit(f"--scenarios: unknown {unknown} (choose from {', '.join(SCENARIOS)})")
    if "baseline" not in chosen:
        chosen.insert(0, "baseline")
    workdir = Path(tempfile.mkdtemp(prefix="cogleague-abuse-"))
    proc, url, log = start_server(workdir)
    rows: list[dict[str, Any]] = []
    try:
        creator = await _account(url, "idle")
        async with httpx.AsyncClient(base_url=url,
                                     headers={"Authorization": f"Bearer {creator}"}) as c:
            idle = (await c.post("/tables", json={"game": "dilemma", "seed": 1})).json()["id"]
        baseline = None
        for name in chosen:
            row = await _scenario(name, url, proc.pid, log, args, baseline, idle)
            if name == "baseline":
                baseline = row["_figures"]
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "_figures"}), flush=True)
    finally:
        proc.terminate()
        proc.wait(20)
    for row in rows:
        row.pop("_figures", None)
    return rows


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every chosen scenario; one row per scenario (also printed as it completes)."""
    rows = asyncio.run(_run(args))
    print(f"\n{'scenario':12} {'moves/s':>8} {'×base':>6} {'p99 ms':>8} {'hz p99':>7} "
          f"{'RSS MB':>7} "
          f"{'files':>6} {'log B':>7} {'tb':>3} {'changed':>7} {'stuck':>5}")
    for r in rows:
        print(f"{r['scenario']:12} {r['moves_per_s']:8.1f} {r.get('moves_vs_baseline', 1.0):6.2f} "
              f"{r['p99_ms']:8.1f} {r['healthz_p99_ms']:7.1f} {r['rss_mb']:7.1f} "
              f"{r['open_files']:6d} {r['log_bytes']:7d} "
              f"{r['tracebacks']:3d} {r['results_changed']:7d} {r['stuck']:5d}")
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(ap)
    rows = run(ap.parse_args())
    bad = [r["scenario"] for r in rows if r["tracebacks"] or r["results_changed"] or r["stuck"]]
    if bad:
        raise SystemExit(f"tracebacks, changed results or stuck tables in: {', '.join(bad)}")


if __name__ == "__main__":
    main()
