"""Helpers for server tests: a real server process, accounts, whole tables played by SDK bots."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from cogleague.client import Bot, LobbyClient, play_seat
from cogleague.core.episode import run_episode
from cogleague.games import registry
from cogleague.seats.inprocess import BotSeat
from cogleague.seats.scripted import ScriptedSeat
from cogleague.server import listen
from cogleague.server.frames import validate_server_frame
from cogleague.server.lineup import SeatPlan, build_game

OPERATOR_KEY = "test-operator-key-0123456789"
LAUNCH = Path(__file__).with_name("launch.py")
TOY = {"toy": "server.toyinfo"}


class ServerProcess:
    """`cogleague.server` on uvicorn in a child process, on a loopback port of its own: bound
    here and handed to the child (`launch.py`), never chosen free and bound later."""

    def __init__(self, db_url: str, log_path: Path, **settings: Any) -> None:
        self._listening = listen.bind("127.0.0.1", 0)
        self.port = listen.bound_port(self._listening)
        self.log_path = log_path
        self.settings = {"db_url": db_url, "operator_key": OPERATOR_KEY, "extra_games": TOY,
                         **settings}
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 90.0) -> ServerProcess:
        """Start the child on this object's port: the socket bound at construction the first
        time, the same port bound again after a `kill` or `stop` (a restart)."""
        sock = self._listening or listen.bind("127.0.0.1", self.port)
        self._listening = None
        log = self.log_path.open("ab")
        try:
            self.proc = subprocess.Popen([sys.executable, str(LAUNCH), str(sock.fileno()),
                                          json.dumps(self.settings)], stdout=log, stderr=log,
                                         pass_fds=(sock.fileno(),))
        finally:
            sock.close()  # the child holds the listening socket now
            log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError(f"server did not come up: {self.log_path.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, exactly like a crash. (`Popen.kill`: a child that
        already exited and was reaped is not signalled, nor a pid reused since.)"""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(60)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        if self._listening is not None:  # built, never started
            self._listening.close()
            self._listening = None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


async def attached(recorders: Sequence[Recorder], timeout_s: float = 30.0) -> None:
    """Wait until every seat's socket got its snapshot (is listening), instead of sleeping."""
    await asyncio.wait_for(asyncio.gather(*(r.attached.wait() for r in recorders)), timeout_s)


def operator(server: ServerProcess) -> LobbyClient:
    return LobbyClient(server.url, OPERATOR_KEY)


_names = iter(range(10**9))


async def new_account(server: ServerProcess, credits: int = 0, prefix: str = "acct"
                      ) -> tuple[int, str]:
    async with operator(server) as op:
        made = await op.create_account(f"{prefix}{os.getpid()}x{next(_names)}", credits)
    return made["id"], made["api_key"]


class Recorder:
    """Every raw frame one seat received, each checked against the published frame schemas."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.attached = asyncio.Event()  # set at the first snapshot: the seat is listening

    def __call__(self, frame: dict[str, Any]) -> None:
        validate_server_frame(frame)
        self.frames.append(frame)
        if frame["type"] == "snapshot":
            self.attached.set()

    def text(self) -> str:
        return json.dumps(self.frames, ensure_ascii=False)


async def play_table(server: ServerProcess, game: str, lineup: Sequence[Bot | str], *,
                     seed: int, variant: str | None = None, config: dict[str, Any] | None = None,
                     names: Sequence[str] | None = None, timeout_s: float = 120.0,
                     ) -> Played:
    """Play one table: Bot instances join as remote seats, strings as scripted baselines."""
    names = list(names or [b if isinstance(b, str) else f"bot{i}" for i, b in enumerate(lineup)])
    _, creator_key = await new_account(server)
    async with LobbyClient(server.url, creator_key) as creator:
        table = await creator.create_table(game, variant=variant, config=config or {},
                                           seed=seed, pacing=False)
    tid = table["id"]
    recorders = [Recorder() for _ in lineup]
    tokens = []
    sessions = []
    for seat, member in enumerate(lineup):
        _, key = await new_account(server)
        async with LobbyClient(server.url, key) as lobby:
            if isinstance(member, str):
                await lobby.join(tid, "scripted", baseline=member, seat=seat, name=names[seat])
            else:
                joined = await lobby.join(tid, "remote", seat=seat, name=names[seat])
                tokens.append(joined["token"])
                sessions.append(play_seat(member, server.url, tid, seat, joined["token"],
                                          on_frame=recorders[seat]))
    tasks = [asyncio.create_task(s) for s in sessions]
    await attached([r for r, m in zip(recorders, lineup, strict=True) if not isinstance(m, str)])
    async with LobbyClient(server.url, creator_key) as creator:
        await creator.start(tid)
        await asyncio.wait_for(asyncio.gather(*tasks), timeout_s)
        results = await creator.results(tid)
    return Played(results, recorders, tid, tokens)


@dataclass
class Played:
    results: dict[str, Any]
    recorders: list[Recorder]  # each seat's frames (empty for scripted seats)
    table: str
    tokens: list[str]


async def play_headless(game: str, lineup: Sequence[Bot | str], *, seed: int,
                        variant: str | None = None, config: dict[str, Any] | None = None,
                        names: Sequence[str] | None = None) -> dict[str, Any]:
    """The same line-up in-process (bots via `BotSeat`), no server: the reference results."""
    names = list(names or [b if isinstance(b, str) else f"bot{i}" for i, b in enumerate(lineup)])
    info = registry.get(game)
    g = build_game(info, variant, config or {}, seed,
                   [SeatPlan(names[i], "scripted", m) if isinstance(m, str)
                    else SeatPlan(names[i], "remote") for i, m in enumerate(lineup)])
    seats = [ScriptedSeat(g.make_baseline(m, i), names[i]) if isinstance(m, str)
             else BotSeat(m, g, i, names[i]) for i, m in enumerate(lineup)]
    return (await run_episode(g, seats)).results
