"""Fault and abuse figures: hostile frames and bodies against a live server, honest tables beside.

Starts `cogleague.server` on uvicorn in a child process (SQLite in a temp dir, loopback only)
and plays, at the same time:

- honest dilemma tables of 4 remote SDK bots each (a grudger), whose move latency (your_turn
  received → ack received) is measured during the attack and whose results are compared with
  the same line-up played headless;
- a paid 3-seat dilemma whose losing seat puts a lone surrogate in every promise, then sends
  it again clean (it must be refused each time, and the table must settle by points);
- a spray seat throwing every scenario of `SCENARIOS` (frames and HTTP bodies) at the server.

Prints one JSON document: frames tried by kind and the codes they got, tables beside them,
results changed (must be 0), credits created or lost (must be 0), server errors in its log
(must be 0), honest p50/p99 during the attack. Bounded: every count is an option.

    .venv/bin/python benchmarks/abuse.py
    .venv/bin/python benchmarks/abuse.py --tables 20 --rounds 30 --frames 200
    .venv/bin/python benchmarks/abuse.py --availability   # also abuse_availability.py's floods

`--availability` then runs `abuse_availability.py` with its defaults (floods, half-open
connections, huge bodies, deep frames, unknown ids, spectators; its own options are on that
script) and fails the same way on a traceback, a changed result or a stuck table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from websockets.asyncio.client import ClientConnection, connect

OPERATOR_KEY = "bench-operator-key-0123456789"
CREDITS, STAKE = 100, 10
PAID_LINEUP = ["always_cooperate", "always_defect", "tit_for_tat"]  # seat 0 plays and loses

SERVE_SCRIPT = """\
import uvicorn
from cogleague.server.app import create_app
from cogleague.server.settings import Settings, TRANSPORT_MAX_FRAME_BYTES
from cogleague.server.transport import WS_PROTOCOL
app = create_app(Settings(db_url={db!r}, operator_key={key!r}, record_league=False,
                          max_open_tables_per_account=1000,
                          node_url="http://127.0.0.1:{port}"))
uvicorn.run(app, host="127.0.0.1", port={port}, log_level="warning", access_log=False,
            ws_max_size=TRANSPORT_MAX_FRAME_BYTES, ws=WS_PROTOCOL)
"""


@dataclass(frozen=True)
class Scenario:
    """One kind of hostile input: `frame(i)` builds the i-th frame text (or body), sent on
    the spray seat's socket (`target` "frame") or POSTed to `path` (`target` "http")."""

    name: str
    target: str
    build: Callable[[int], str]
    path: str = ""


def _move(**fields: Any) -> str:
    # json.dumps writes a lone surrogate as its \u escape: exactly what a hostile client sends
    return json.dumps({"type": "move", "turn_id": "stale-turn", **fields})


SCENARIOS: list[Scenario] = [
    Scenario("surrogate_promise", "frame",
             lambda i: _move(action="cooperate", message=f"promise {i} \ud800")),
    Scenario("surrogate_low_half", "frame",
             lambda i: _move(action="defect", message=chr(0xDC00 + i % 1024))),
    Scenario("nul_in_text", "frame", lambda i: _move(action="cooperate", message=f"a\x00{i}")),
    Scenario("surrogate_key", "frame", lambda i: json.dumps({"type": "move",
                                                             "turn_id": "t", "\udfff": i})),
    Scenario("surrogate_turn_id", "frame",
             lambda i: json.dumps({"type": "move", "turn_id": f"t{i}\ud83d", "action": "defect"})),
    Scenario("deep_nesting", "frame", lambda i: "[" * 30_000 + "]" * 30_000),
    Scenario("malformed_json", "frame", lambda i: '{"type": "move", "turn_id": ' + str(i)),
    Scenario("oversized", "frame", lambda i: _move(message="x" * (70 * 1024))),
    Scenario("noncharacters", "frame",
             lambda i: _move(action="cooperate", message="\ufdd0\uffff\U0010fffe ok")),
    Scenario("body_surrogate_fill_with", "http",
             lambda i: json.dumps({"game": "dilemma", "fill_with": "\ud800x"}), "/tables"),
    Scenario("body_nul_config_key", "http",
             lambda i: json.dumps({"game": "dilemma", "config": {"a\x00": 1}}), "/tables"),
    Scenario("body_surrogate_account", "http",
             lambda i: json.dumps({"name": f"n{i}\udbff"}), "/accounts"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db_url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    script = log.with_name("serve.py")
    script.write_text(SERVE_SCRIPT.format(db=db_url, key=OPERATOR_KEY, port=port))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=log.open("wb"),
                            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the server did not start: {log.read_text()[-2000:]}")


def server_errors(log: str) -> list[str]:
    """Error lines in the server's log (uvicorn's note on a refused upgrade is not one)."""
    return [line for line in log.splitlines()
            if ("Traceback" in line or "ERROR" in line or "Exception" in line)
            and "returned without completing handshake" not in line]


def quantile(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _ws(url: str, table: str, seat: int, token: str) -> str:
    q = urlencode({"table": table, "seat": seat, "token": token, "last_seq": 0})
    return url.replace("http://", "ws://") + "/ws/play?" + q


async def _reply(ws: ClientConnection, text: str) -> dict[str, Any]:
    """Send one frame and return the first `error` or `ack` after it."""
    await ws.send(text)
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if frame["type"] in ("error", "ack"):
            return dict(frame)


class Bench:
    def __init__(self, url: str, args: argparse.Namespace) -> None:
        self.url = url
        self.args = args
        self.latencies: list[float] = []
        self.connected = 0
        self.attacking = False
        self.tried: Counter[str] = Counter()
        self.codes: dict[str, Counter[str]] = {}
        self.deposits = 0
        self.keys: list[str] = []

    async def account(self, credits: int = 0) -> str:
        from cogleague.client import LobbyClient

        async with LobbyClient(self.url, OPERATOR_KEY) as op:
            made = await op.create_account(f"a{len(self.keys)}x{os.getpid()}", credits)
        self.deposits += credits
        self.keys.append(made["api_key"])
        return str(made["api_key"])

    # -- honest tables ------------------------------------------------------------------------
    async def honest(self, creator: str) -> list[tuple[str, int, list[Any]]]:
        from cogleague.client import LobbyClient, play_seat

        out, tasks = [], []
        for i in range(self.args.tables):
            seed = 500 + i
            async with LobbyClient(self.url, creator) as lobby:
                table = await lobby.create_table("dilemma", seed=seed, pacing=False,
                                                 config={"rounds_total": self.args.rounds})
            for seat in range(4):
                key = await self.account()
                async with LobbyClient(self.url, key) as lobby:
                    joined = await lobby.join(table["id"], "remote", seat=seat)
                tasks.append(play_seat(Grudger(), self.url, table["id"], seat, joined["token"],
                                       on_frame=self.timer()))
            out.append((table["id"], seed, tasks[-4:]))
        return out

    def timer(self) -> Callable[[dict[str, Any]], None]:
        asked: dict[str, float] = {}

        def on_frame(frame: dict[str, Any]) -> None:
            if frame["type"] == "snapshot":
                self.connected += 1
            if frame["type"] == "your_turn":
                asked[frame["turn_id"]] = time.perf_counter()
            elif frame["type"] == "ack":
                t0 = asked.pop(frame["turn_id"], None)
                if t0 is not None and self.attacking:
                    self.latencies.append(time.perf_counter() - t0)
        return on_frame

    # -- the paid table whose loser poisons every promise ---------------------------------------
    async def paid(self, creator: str) -> tuple[str, list[str], Any]:
        from cogleague.client import LobbyClient

        async with LobbyClient(self.url, creator) as lobby:
            table = await lobby.create_table("dilemma", seed=9, pacing=False, stake=STAKE,
                                             config={"rounds_total": self.args.rounds,
                                                     "seats": 3})
        keys, token = [], ""
        for seat, member in enumerate(PAID_LINEUP):
            key = await self.account(CREDITS)
            keys.append(key)
            async with LobbyClient(self.url, key) as lobby:
                if seat == 0:
                    token = (await lobby.join(table["id"], "remote", seat=0))["token"]
                else:
                    await lobby.join(table["id"], "scripted", baseline=member, seat=seat)
        return table["id"], keys, self.poisoner(table["id"], token)

    async def poisoner(self, table: str, token: str) -> None:
        async with connect(_ws(self.url, table, 0, token), proxy=None, compression=None,
                           max_size=2**23) as ws:
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 120))
                if frame["type"] == "end":
                    return
                if frame["type"] != "your_turn":
                    continue
                turn = frame["turn_id"]
                for message in ("I cooperate \ud800", "I cooperate"):
                    reply = await _reply(ws, json.dumps({"type": "move", "turn_id": turn,
                                                         "action": "cooperate",
                                                         "message": message}))
                    self.tried["paid_table_promise"] += 1
                    self.codes.setdefault("paid_table_promise", Counter())[
                        reply.get("code", reply["type"])] += 1

    # -- the spray seat --------------------------------------------------------------------------
    async def spray(self, creator: str) -> None:
        from cogleague.client import LobbyClient

        async with LobbyClient(self.url, creator) as lobby:
            table = await lobby.create_table("dilemma", seed=2, pacing=False,
                                             fill_with="tit_for_tat",
                                             config={"rounds_total": 1000})
        key = await self.account()
        async with LobbyClient(self.url, key) as lobby:
            token = (await lobby.join(table["id"], "remote", seat=0))["token"]
        async with LobbyClient(self.url, OPERATOR_KEY) as op:
            await op.start(table["id"])
        http = httpx.AsyncClient(base_url=self.url, headers={
            "Authorization": f"Bearer {OPERATOR_KEY}", "Content-Type": "application/json"})
        try:
            async with connect(_ws(self.url, table["id"], 0, token), proxy=None,
                               compression=None, max_size=2**23) as ws:
                for scenario in SCENARIOS:
                    codes = self.codes.setdefault(scenario.name, Counter())
                    for i in range(self.args.frames):
                        text = scenario.build(i)
                        if scenario.target == "frame":
                            reply = await _reply(ws, text)
                            codes[reply.get("code", reply["type"])] += 1
                            if reply.get("code") == "rate_limited":
                                await asyncio.sleep(0.5)
                        else:
                            response = await http.post(scenario.path, content=text)
                            codes[f"{response.status_code} "
                                  f"{response.json().get('error', {}).get('code')}"] += 1
                        self.tried[scenario.name] += 1
                        await asyncio.sleep(1 / self.args.rate)
        finally:
            await http.aclose()
            async with LobbyClient(self.url, OPERATOR_KEY) as op:
                await op.abort(table["id"])


class Grudger:
    """An honest SDK bot: cooperates until its opponent defects once."""

    def __new__(cls) -> Any:
        from cogleague.client import Bot, TurnInfo

        class _Grudger(Bot):
            def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
                state = turn.visible_state
                pairing = next(p for p in state["pairings"]
                               if p["opponent"] == state["opponent"])
                betrayed = any(row["them"] == "D" for row in pairing["history"])
                return {"action": "defect" if betrayed else "cooperate"}

        return _Grudger()


async def _main(url: str, args: argparse.Namespace) -> dict[str, Any]:
    import cogleague
    from cogleague.client import LobbyClient

    bench = Bench(url, args)
    creator = await bench.account()
    honest = await bench.honest(creator)
    paid_id, _, poisoner = await bench.paid(creator)
    seats = [asyncio.create_task(s) for _, _, sessions in honest for s in sessions]
    while bench.connected < 4 * args.tables:  # every honest bot listens before the start
        await asyncio.sleep(0.05)
    async with LobbyClient(url, creator) as lobby:
        for table, _, _ in honest:
            await lobby.start(table)
        await lobby.start(paid_id)
    bench.attacking = True
    started = time.monotonic()
    await asyncio.gather(bench.spray(creator), poisoner, *seats)
    attack_s = time.monotonic() - started
    bench.attacking = False
    changed, rake = 0, 0
    async with LobbyClient(url, creator) as lobby:
        for table, seed, _ in honest:
            got = await lobby.results(table)
            want = (await cogleague.aplay("dilemma", [Grudger() for _ in range(4)], seed=seed,
                                          rounds_total=args.rounds)).results
            changed += got["scores"] != want["scores"] or got["reason"] != "complete"
        paid = await lobby.results(paid_id)
        want = (await cogleague.aplay("dilemma", PAID_LINEUP, seed=9,
                                      rounds_total=args.rounds)).results
        changed += paid["scores"] != want["scores"] or paid["reason"] != "complete"
        rake = int(paid.get("rake") or 0)
    balances = 0
    for key in bench.keys:
        async with LobbyClient(url, key) as lobby:
            balances += int((await lobby.wallet())["balance"])
    lat = bench.latencies
    return {"frames_tried": dict(bench.tried), "replies": {k: dict(v) for k, v in
                                                         bench.codes.items()},
            "tables_beside": len(honest) + 1, "attack_seconds": round(attack_s, 1),
            "results_changed": changed, "credits_delta": balances + rake - bench.deposits,
            "honest_moves_during_attack": len(lat),
            "honest_p50_ms": None if not lat else round(1000 * statistics.median(lat), 1),
            "honest_p99_ms": None if not lat else round(1000 * (quantile(lat, 0.99) or 0), 1)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start a server, attack it with every scenario beside honest tables, return the figures."""
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        log = Path(tmp) / "server.log"
        proc = start_server(f"sqlite:///{Path(tmp) / 'abuse.db'}", port, log)
        try:
            report = asyncio.run(_main(f"http://127.0.0.1:{port}", args))
        finally:
            proc.terminate()
            proc.wait(20)
        report["server_errors"] = len(server_errors(log.read_text()))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10, help="honest tables beside")
    parser.add_argument("--rounds", type=int, default=20, help="rounds of every table")
    parser.add_argument("--frames", type=int, default=40, help="frames (or bodies) per scenario")
    parser.add_argument("--rate", type=float, default=40.0, help="hostile frames per second")
    parser.add_argument("--availability", action="store_true",
                        help="also run abuse_availability.py's scenarios (its defaults)")
    args = parser.parse_args()
    report = run(args)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    bad = bool(report["results_changed"] or report["credits_delta"] or report["server_errors"])
    if args.availability:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import abuse_availability

        options = argparse.ArgumentParser()
        abuse_availability.add_arguments(options)
        rows = abuse_availability.run(options.parse_args([]))
        bad = bad or any(r["tracebacks"] or r["results_changed"] or r["stuck"] for r in rows)
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
