"""Hostile input against a live server (loopback only), while honest tables play beside it.

The attacker sends hypothesis-generated frames — malformed JSON, wrong types, oversized,
out-of-turn, replayed turn ids, other seats' tokens at the upgrade, floods past the rate limit,
text frames that are not UTF-8, WebSocket pings from a socket that reads none of its pongs
— and keeps half-open, never-reading and very slow sockets open. Honest tables of all three
games play back to back meanwhile (SDK bots, policies named ``policy-secret-…``, private
markers in memos, notes and promises). Afterwards: no server error in its log, every honest
table ends exactly as its headless run, and no frame to any seat (honest or attacker) nor any
live spectator frame carries another seat's private field, any token or any policy name.
The bounded run is in CI; the 10,000-frame soak is marked slow. Figures are printed.
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from cogleague.client import LobbyClient, TurnInfo
from server.abuse import Attacker, shots
from server.support import OPERATOR_KEY, Recorder, ServerProcess, new_account, play_headless

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from commons_bot import Steward
from dilemma_bot import PromiseKeeper
from ledger_bot import FairDealer


class MarkedKeeper(PromiseKeeper):
    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        reply = super().on_turn(turn)
        return {**reply, "message": f"promise-from-{turn.seat}-to-"
                                    f"{turn.visible_state['opponent']} cooperate"}


class MarkedDealer(FairDealer):
    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        return {**super().on_turn(turn), "memo": f"memo-secret-{turn.seat}"}


class MarkedSteward(Steward):
    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        return {**super().on_turn(turn), "note": f"note-secret-{turn.seat}"}


HONEST: list[dict[str, Any]] = [
    {"game": "dilemma", "config": {"rounds_total": 8},
     "lineup": [MarkedKeeper, "tit_for_tat", MarkedKeeper, "always_defect"]},
    {"game": "ledger", "variant": "quickfire",
     "lineup": [MarkedDealer, "shark", MarkedDealer, "mirror", "grim", "saint", "opportunist",
                MarkedDealer]},
    {"game": "commons", "variant": "cleanup", "config": {"rounds": 6},
     "lineup": [MarkedSteward, "free_rider", MarkedSteward, "punisher", "reciprocator",
                MarkedSteward]},
]
PRIVATE = re.compile(r"(memo-secret-|note-secret-)(\d+)|promise-from-(\d+)-to-(\d+)")


class Timed(Recorder):
    """A seat's frames with their arrival times: your_turn → ack is the move latency."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: dict[str, float] = {}
        self.latencies: list[float] = []

    def __call__(self, frame: dict[str, Any]) -> None:
        super().__call__(frame)
        t = time.monotonic()
        if frame["type"] == "your_turn":
            self.asked.setdefault(frame["turn_id"], t)
        elif frame["type"] == "ack" and frame.get("turn_id") in self.asked:
            self.latencies.append(t - self.asked.pop(frame["turn_id"]))


def private_leaks(text: str, seat: int | None) -> list[str]:
    """Private markers in `text` that `seat` may not see (None: a spectator sees none)."""
    out = []
    for m in PRIVATE.finditer(text):
        if m.group(2) is not None:
            if seat is None or int(m.group(2)) != seat:
                out.append(m.group(0))
        elif seat is None or seat not in (int(m.group(3)), int(m.group(4))):
            out.append(m.group(0))
    return out


@dataclass
class HonestPlay:
    """Honest tables back to back on a thread of their own until told to stop."""

    server: ServerProcess
    stop: threading.Event = field(default_factory=threading.Event)
    tables: list[tuple[str, int]] = field(default_factory=list)
    played: int = 0
    changed: int = 0
    leaks: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    error: BaseException | None = None

    def run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported by the test
            self.error = exc

    async def _main(self) -> None:
        i = 0
        while not self.stop.is_set() or i < len(HONEST):
            spec = HONEST[i % len(HONEST)]
            await self._one(spec, seed=100 + i)
            i += 1

    async def _one(self, spec: dict[str, Any], seed: int) -> None:
        names = [f"policy-secret-{i}" for i in range(len(spec["lineup"]))]
        lineup = [m if isinstance(m, str) else m() for m in spec["lineup"]]
        recorders = {s: Timed() for s, m in enumerate(lineup) if not isinstance(m, str)}
        played = await _play(self, spec, lineup, names, seed, recorders)
        headless = await play_headless(spec["game"], [m if isinstance(m, str) else m()
                                                      for m in spec["lineup"]],
                                       seed=seed, variant=spec.get("variant"),
                                       config=spec.get("config"), names=names)
        strip = ("generated_at",)
        self.played += 1
        if {k: v for k, v in played.items() if k not in strip} != \
                {k: v for k, v in headless.items() if k not in strip}:
            self.changed += 1
        for seat, rec in recorders.items():
            text = rec.text()
            self.leaks += private_leaks(text, seat)
            if "policy-secret-" in text:
                self.leaks.append(f"policy name to seat {seat}")
            self.latencies += rec.latencies
        for seat, rec in recorders.items():
            for token in self.tokens:
                if token in rec.text():
                    self.leaks.append(f"a token to seat {seat}")


async def _play(h: HonestPlay, spec: dict[str, Any], lineup: list[Any], names: list[str],
                seed: int, recorders: dict[int, Timed]) -> dict[str, Any]:
    from cogleague.client import play_seat

    server = h.server
    _, creator = await new_account(server)
    async with LobbyClient(server.url, creator) as lobby:
        table = await lobby.create_table(spec["game"], variant=spec.get("variant"),
                                         config=spec.get("config") or {}, seed=seed,
                                         pacing=False)
    tid = table["id"]
    tasks = []
    for seat, member in enumerate(lineup):
        _, key = await new_account(server)
        async with LobbyClient(server.url, key) as lobby:
            if isinstance(member, str):
                await lobby.join(tid, "scripted", baseline=member, seat=seat, name=names[seat])
                continue
            joined = await lobby.join(tid, "remote", seat=seat, name=names[seat])
        h.tokens.append(joined["token"])
        tasks.append(asyncio.create_task(play_seat(member, server.url, tid, seat,
                                                   joined["token"],
                                                   on_frame=recorders[seat])))
    h.tables.append((tid, len(lineup)))
    await asyncio.sleep(0.2)
    async with LobbyClient(server.url, creator) as lobby:
        await lobby.start(tid)
        await asyncio.wait_for(asyncio.gather(*tasks), 180)
        return dict(await lobby.results(tid))


def server_errors(log: str) -> list[str]:
    """Error lines in the server's log, without uvicorn's note on every refused upgrade."""
    return [line for line in log.splitlines()
            if ("Traceback" in line or "ERROR" in line or "Exception" in line)
            and "returned without completing handshake" not in line]


def p99(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))] if xs else float("nan")


def run_attack(make_server: Callable[..., ServerProcess], db: str, examples: int
               ) -> dict[str, Any]:
    server = make_server(db, max_open_tables_per_account=100)
    honest = HonestPlay(server)
    thread = threading.Thread(target=honest.run, name="honest-tables")
    thread.start()

    async def attacker_seat() -> tuple[str, str]:
        _, creator = await new_account(server)
        _, key = await new_account(server)
        async with LobbyClient(server.url, creator) as lobby:
            table = await lobby.create_table("dilemma", config={"rounds_total": 200},
                                             seed=1, pacing=False, fill_with="tit_for_tat")
        async with LobbyClient(server.url, key) as lobby:
            joined = await lobby.join(table["id"], "remote", seat=0, name="attacker-policy")
        return table["id"], joined["token"]

    table, token = asyncio.run(attacker_seat())
    deadline = time.monotonic() + 60
    while not honest.tables and time.monotonic() < deadline:
        time.sleep(0.05)
    attacker = Attacker(server.url, table, 0, token, honest.tables)
    attacker.open()

    async def start() -> None:
        async with LobbyClient(server.url, OPERATOR_KEY) as op:
            await op.start(table)

    asyncio.run(start())
    started = time.monotonic()
    lat_before = len(honest.latencies)

    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def attack(data: st.DataObject) -> None:
        attacker.fire(data.draw(shots()))

    try:
        attack()
        attack_s = time.monotonic() - started
        during = list(honest.latencies[lat_before:])
    finally:
        honest.stop.set()
        deadline = time.monotonic() + 300
        while thread.is_alive() and time.monotonic() < deadline:
            attacker.drain()  # the spectator sockets keep being read until the tables end
            thread.join(0.2)
        attacker.drain()
        attacker.close()
    assert not thread.is_alive(), "the honest tables did not end within 300 s"
    assert honest.error is None, honest.error
    seat_text = "\n".join(attacker.received)
    watch_live = "\n".join(f for f in attacker.watched if '"type":"end"' not in f)
    leaks = list(honest.leaks)
    leaks += [f"attacker seat: {x}" for x in private_leaks(seat_text, 0)]
    leaks += [f"spectator: {x}" for x in private_leaks(watch_live, None)]
    for label, text in (("attacker seat", seat_text), ("spectator", watch_live)):
        if "policy-secret-" in text or "attacker-policy" in text:
            leaks.append(f"{label}: a policy name")
        leaks += [f"{label}: a token" for t in honest.tokens if t in text]
    return {"frames_sent": attacker.sent, "examples": examples,
            "attack_seconds": round(attack_s, 1),
            "server_errors": server_errors(server.log_path.read_text()),
            "honest_tables": honest.played, "honest_changed": honest.changed,
            "leaks": leaks, "wrong_tokens_refused": attacker.refused,
            "wrong_tokens_accepted": attacker.accepted_wrong,
            "seat_reconnects": attacker.reconnects,
            "ping_floods": attacker.ping_floods,
            "ping_floods_dropped": attacker.ping_floods_dropped,
            "honest_moves_during_attack": len(during),
            "honest_p50_ms": round(1000 * statistics.median(during), 2) if during else None,
            "honest_p99_ms": round(1000 * p99(during), 2) if during else None}


def check(report: dict[str, Any], min_frames: int) -> None:
    print("\nabuse:", json.dumps({k: v for k, v in report.items() if k != "server_errors"}
                                 | {"server_errors": len(report["server_errors"])}))
    assert report["frames_sent"] >= min_frames
    assert report["server_errors"] == [], report["server_errors"][:5]
    assert report["honest_changed"] == 0 and report["honest_tables"] >= len(HONEST)
    assert report["leaks"] == [], report["leaks"][:5]
    assert report["wrong_tokens_accepted"] == 0 and report["wrong_tokens_refused"] > 0
    assert report["honest_moves_during_attack"] > 0
    assert report["ping_floods"] > 0
    assert report["ping_floods_dropped"] == report["ping_floods"], "pongs buffered for a "\
        "socket that reads nothing"


def test_abuse_bounded(make_server: Callable[..., ServerProcess], tmp_path: Path) -> None:
    check(run_attack(make_server, f"sqlite:///{tmp_path / 'abuse.db'}", 250), 1_000)


@pytest.mark.slow
def test_abuse_soak_10000_frames(make_server: Callable[..., ServerProcess],
                                 tmp_path: Path) -> None:
    check(run_attack(make_server, f"sqlite:///{tmp_path / 'abuse.db'}", 1_500), 10_000)
