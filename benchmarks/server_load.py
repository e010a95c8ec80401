"""Load benchmark for the table server: K concurrent dilemma tables of 4 remote SDK bots each.

Starts `cogleague.server` on uvicorn in a child process (SQLite file in a temp dir unless
--db is given), creates K tables over HTTP, connects 4·K bots (spread over --clients
processes, all on loopback), starts every table and plays them to the end. Prints moves/s and
the p50/p99 latency from `your_turn` received to the move's `ack` received, measured by the bots.

Multi-process mode: ``--processes N --pg`` starts a throwaway PostgreSQL cluster and N server
processes on it; table i is created and started on process i mod N (which then holds its
lease) and its bots connect there. Server CPU per move sums every server process; PostgreSQL's
own CPU is reported beside it.

    .venv/bin/python benchmarks/server_load.py --tables 100 --rounds 10
    .venv/bin/python benchmarks/server_load.py --tables 100 --rounds 10 --pg --processes 2

Under callgrind: ``BENCH_CALLGRIND=1`` (or ``--callgrind``) runs each server process under
``valgrind --tool=callgrind``, defaults to 10 tables of 10 rounds, zeroes the counters when play
starts and dumps them when it ends, and prints ``callgrind_instructions_per_move`` (the
server's instructions, setup and shutdown excluded): a figure the machine's load does not move.
Wall-clock figures under valgrind mean nothing; the dumps stay in the printed directory
(``callgrind_annotate FILE`` for the top functions).

    BENCH_CALLGRIND=1 .venv/bin/python benchmarks/server_load.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from cogleague.server.transport import WS_PROTOCOL

OPERATOR_KEY = "bench-operator-key-0123456789"
SEATS = 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SERVE_SCRIPT = """\
import uvicorn
from cogleague.server.app import create_app
from cogleague.server.settings import Settings, TRANSPORT_MAX_FRAME_BYTES
app = create_app(Settings(db_url={db!r}, operator_key={key!r}, record_league=False,
                          moves_per_second=1000, move_burst=1000,
                          node_url="http://127.0.0.1:{port}"))
def serve():
    uvicorn.run(app, host="127.0.0.1", port={port}, log_level="warning", access_log=False,
                ws_max_size=TRANSPORT_MAX_FRAME_BYTES, ws={ws!r}, loop={loop!r})
if {profile!r}:  # uvicorn re-raises SIGINT after shutting down: dump in `finally`
    import cProfile
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        serve()
    finally:
        profiler.disable()
        profiler.dump_stats({profile!r})
else:
    serve()
"""


def start_server(db_url: str, port: int, log: Path, ws: str = WS_PROTOCOL, loop: str = "auto",
                 callgrind: bool = False) -> subprocess.Popen[bytes]:
    """The server in a child process; BENCH_PROFILE=PATH writes a cProfile of it there;
    `callgrind` runs it under valgrind's callgrind (dumps beside `log`)."""
    script = log.with_name("serve.py")
    script.write_text(SERVE_SCRIPT.format(db=db_url, key=OPERATOR_KEY, port=port, ws=ws,
                                          loop=loop, profile=os.environ.get("BENCH_PROFILE", "")))
    command = [sys.executable, str(script)]
    if callgrind:
        command = ["valgrind", "--tool=callgrind", "--quiet",
                   f"--callgrind-out-file={log.with_name('callgrind.out')}.%p", *command]
    proc = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + (600 if callgrind else 60)
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the server did not start: {log.read_text()[-2000:]}")


async def setup(urls: list[str], tables: int, rounds: int
                ) -> list[tuple[str, int, str, str]]:
    """Accounts, tables and joins over HTTP; returns (table, seat, token, server) per bot:
    table i lives on server i mod N."""
    from cogleague.client import LobbyClient

    url = urls[0]
    seats: list[tuple[str, int, str, str]] = []
    async with LobbyClient(url, OPERATOR_KEY) as op:
        keys = [(await op.create_account(f"bench{i}"))["api_key"] for i in range(SEATS + 1)]
    clients = [LobbyClient(url, k) for k in [OPERATOR_KEY, *keys[1:]]]
    try:
        for i in range(tables):
            t = await clients[0].create_table("dilemma", pacing=False,
                                              config={"rounds_total": rounds})
            for seat in range(SEATS):
                joined = await clients[seat + 1].join(t["id"], "remote", seat=seat)
                seats.append((t["id"], seat, joined["token"], urls[i % len(urls)]))
    finally:
        for c in clients:
            await c.aclose()
    return seats


def client_process(seats: list[tuple[str, int, str, str]], ready: Any, go: Any,
                   out: Any) -> None:
    """Play some bots; report (moves, latencies) once they all end."""
    from cogleague.client import Bot, TurnInfo, play_seat

    class Grudger(Bot):
        def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
            state = turn.visible_state
            pairing = next(p for p in state["pairings"] if p["opponent"] == state["opponent"])
            betrayed = any(row["them"] == "D" for row in pairing["history"])
            return {"action": "defect" if betrayed else "cooperate"}

    latencies: list[float] = []
    connected = [0]

    def timer() -> Any:
        sent: dict[str, float] = {}

        def on_frame(frame: dict[str, Any]) -> None:
            kind = frame["type"]
            if kind == "snapshot":
                connected[0] += 1
            elif kind == "your_turn":
                sent[frame["turn_id"]] = time.perf_counter()
            elif kind == "ack":
                t0 = sent.pop(frame["turn_id"], None)
                if t0 is not None:
                    latencies.append(time.perf_counter() - t0)
        return on_frame

    async def main() -> None:
        tasks = [asyncio.create_task(play_seat(Grudger(), url, t, s, tok, on_frame=timer()))
                 for t, s, tok, url in seats]
        while connected[0] < len(seats):  # every socket connected (snapshots in)
            await asyncio.sleep(0.05)
        ready.set()
        await asyncio.get_running_loop().run_in_executor(None, go.wait)
        cpu[0] = time.process_time()
        await asyncio.wait_for(asyncio.gather(*tasks), 600)
        cpu[0] = time.process_time() - cpu[0]

    cpu = [0.0]
    asyncio.run(main())
    out.put((len(latencies), latencies, cpu[0]))


def sample_server(pid: int) -> subprocess.Popen[bytes] | None:
    """BENCH_SAMPLE="CMD {pid}": run CMD against the server when play starts, e.g.
    `.venv/bin/py-spy record -p {pid} -d 8 -r 200 -f raw -o /tmp/s.raw --nonblocking` (sees
    time in C code, unlike BENCH_PROFILE's cProfile) or `timeout 5 strace -f -c -p {pid}`."""
    command = os.environ.get("BENCH_SAMPLE")
    if not command:
        return None
    return subprocess.Popen(command.format(pid=pid), shell=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc), to tell server cost from machine
    load: on a shared machine wall-clock figures alone say little."""
    return sum(cpu_split(pid))


def cpu_split(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process: system time is mostly the kernel's loopback
    TCP work for each `send`/`recv`, user time is Python."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def cluster_cpu(data_dir: Path) -> float:
    """CPU seconds of a PostgreSQL cluster: the postmaster and every backend it forked."""
    master = int((data_dir / "postmaster.pid").read_text().split()[0])
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(stat.parent.name)
        if pid == master or int(fields[1]) == master:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def start_cluster() -> Any:
    """A throwaway PostgreSQL cluster (the tests' helper: initdb + pg_ctl, fsync off)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from helpers.postgres import PgCluster, _pg_bindir

    bindir = _pg_bindir()
    if bindir is None:
        raise SystemExit("--pg needs PostgreSQL's initdb and pg_ctl (apt-get install postgresql)")
    return PgCluster(bindir).start()


def callgrind_control(option: str, pid: int) -> None:
    """Zero (``-z``) or dump (``-d``) the counters of a server running under callgrind."""
    subprocess.run(["callgrind_control", option, str(pid)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)


def callgrind_instructions(directory: Path) -> int:
    """Instructions (Ir) in the dumps `callgrind_control -d` wrote under `directory` (one per
    server process; the final dump at exit, numbered ``.0`` or unnumbered, is left out)."""
    total = 0
    for path in directory.glob("*/callgrind.out.*.[1-9]*"):
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("summary:"):
                total += int(line.split()[1])
    return total


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=None,
                    help="concurrent tables K (default 100; 10 under callgrind)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="rounds per pairing (default 10)")
    ap.add_argument("--clients", type=int, default=2, help="bot processes")
    ap.add_argument("--db", default=None, help="database URL (default: SQLite in a temp dir)")
    ap.add_argument("--ws", default=WS_PROTOCOL,
                    help="uvicorn WebSocket implementation (default: the server's coalescing "
                         "one, as `cogleague serve` uses; websockets-sansio: uvicorn's own)")
    ap.add_argument("--loop", default="auto", help="uvicorn event loop (auto, asyncio, uvloop)")
    ap.add_argument("--processes", type=int, default=1,
                    help="server processes on the same database (more than 1 needs PostgreSQL)")
    ap.add_argument("--pg", action="store_true",
                    help="start a throwaway PostgreSQL cluster and use it as the database")
    ap.add_argument("--callgrind", action="store_true",
                    default=os.environ.get("BENCH_CALLGRIND", "") not in ("", "0"),
                    help="run the servers under callgrind and print instructions per move "
                         "(also BENCH_CALLGRIND=1)")
    args = ap.parse_args()
    if args.tables is None:
        args.tables = 10 if args.callgrind else 100
    if args.rounds is None:
        args.rounds = 10
    tmp = Path(tempfile.mkdtemp(prefix="cogleague-bench-"))
    cluster = start_cluster() if args.pg else None
    db = cluster.new_database() if cluster else (args.db or f"sqlite:///{tmp / 'bench.db'}")
    if args.processes > 1 and not db.startswith("postgres"):
        raise SystemExit("--processes > 1 needs PostgreSQL (--pg or --db postgresql://…)")
    ports = [free_port() for _ in range(args.processes)]
    urls = [f"http://127.0.0.1:{p}" for p in ports]
    servers = []
    for i, p in enumerate(ports):
        (tmp / str(i)).mkdir()
        servers.append(start_server(db, p, tmp / str(i) / "server.log", args.ws, args.loop,
                                    args.callgrind))

    try:
        seats = asyncio.run(setup(urls, args.tables, args.rounds))
        ctx = mp.get_context("spawn")
        go, out = ctx.Event(), ctx.Queue()
        readies = [ctx.Event() for _ in range(args.clients)]
        groups = [seats[i::args.clients] for i in range(args.clients)]
        procs = [ctx.Process(target=client_process, args=(g, r, go, out))
                 for g, r in zip(groups, readies, strict=True)]
        for p in procs:
            p.start()
        for r in readies:
            r.wait(120)
        homes = sorted({(t, u) for t, _, _, u in seats})

        async def start_all() -> None:
            from cogleague.client import LobbyClient
            ops = {u: LobbyClient(u, OPERATOR_KEY) for u in urls}
            try:
                await asyncio.gather(*(ops[u].start(t) for t, u in homes))
            finally:
                for op in ops.values():
                    await op.aclose()

        load0 = os.getloadavg()[0]
        t0 = time.perf_counter()
        cpu0 = sum(cpu_seconds(s.pid) for s in servers)
        sys0 = sum(cpu_split(s.pid)[1] for s in servers)
        pg0 = cluster_cpu(cluster.dir / "data") if cluster else 0.0
        spy = sample_server(servers[0].pid)
        if args.callgrind:
            for s in servers:
                callgrind_control("-z", s.pid)
        asyncio.run(start_all())
        go.set()
        moves, lat, bots_cpu = 0, [], 0.0
        for _ in procs:
            n, xs, used = out.get(timeout=900)
            moves += n
            lat += xs
            bots_cpu += used
        elapsed = time.perf_counter() - t0
        if args.callgrind:
            for s in servers:
                callgrind_control("-d", s.pid)
        server_cpu = sum(cpu_seconds(s.pid) for s in servers) - cpu0
        server_sys = sum(cpu_split(s.pid)[1] for s in servers) - sys0
        pg_cpu = cluster_cpu(cluster.dir / "data") - pg0 if cluster else None
        for p in procs:
            p.join(30)
        if spy is not None:
            spy.wait(60)
        expected = args.tables * args.rounds * SEATS * (SEATS - 1)
        print(json.dumps({
            "tables": args.tables, "bots": len(seats), "rounds": args.rounds,
            "moves": moves, "expected_moves": expected, "seconds": round(elapsed, 2),
            "moves_per_s": round(moves / elapsed, 1),
            "latency_ms": {"p50": round(1000 * statistics.median(lat), 2),
                           "p99": round(1000 * percentile(lat, 0.99), 2),
                           "max": round(1000 * max(lat), 2)},
            "server_cpu_s": round(server_cpu, 2),
            "server_cpu_ms_per_move": round(1000 * server_cpu / max(1, moves), 3),
            "server_sys_cpu_ms_per_move": round(1000 * server_sys / max(1, moves), 3),
            "server_moves_per_cpu_s": round(moves / max(server_cpu, 1e-9), 1),
            "server_processes": len(servers),
            "postgres_cpu_s": None if pg_cpu is None else round(pg_cpu, 2),
            "postgres_cpu_ms_per_move": None if pg_cpu is None
            else round(1000 * pg_cpu / max(1, moves), 3),
            "bots_cpu_s": round(bots_cpu, 2),
            "bots_cpu_ms_per_move": round(1000 * bots_cpu / max(1, moves), 3),
            "load_average": {"before": round(load0, 2), "after": round(os.getloadavg()[0], 2)},
            "db": db.split(":")[0] if db.startswith("postgres") else "sqlite (WAL)",
            "cpus": os.cpu_count(),
            **({"callgrind_instructions_per_move":
                round(callgrind_instructions(tmp) / max(1, moves)),
                "callgrind_dumps": str(tmp)} if args.callgrind else {})}, indent=1))
    finally:
        for s in servers:
            s.send_signal(signal.SIGINT if os.environ.get("BENCH_PROFILE") else signal.SIGTERM)
        for s in servers:
            s.wait(30)
        if cluster is not None:
            cluster.stop()


if __name__ == "__main__":
    main()
