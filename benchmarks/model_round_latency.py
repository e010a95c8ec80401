"""Wall time of one round with N model seats against the provider test server at latency L.

All model seats of a step go out as one concurrent batch, so a round should take about L, not
N × L: the target is wall / L ≤ 1.1 for N = 1, 8 and 64.

64 seats is more than any game seats, so the N sweep uses `RoundGame`, defined here: N seats,
each names a number 0..9 in one JSON object each round (the smallest game the runner drives with
model seats; its prompt and parse are as a real game's). With `--games`, Ledger (8 seats) and
Commons Family (12 seats, its maximum) are measured too, each on its own rounds.

The provider test server (`tests/helpers/provider_server.py`) runs in its own process on
loopback (as a real provider would: its CPU is not ours) and answers every request after L
seconds; the seats reach it through the official SDK named by `--provider`. The client CPU per
request is this process's CPU over the episode; the server reports its own (`/_stats`), printed
beside it — on a 2-core machine the two compete for the cores.

    .venv/bin/python benchmarks/model_round_latency.py [--latency 1.0] [--provider openai]
        [--rounds 3] [--games]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from cogleague.core.episode import run_episode  # noqa: E402
from cogleague.core.errors import IllegalAction  # noqa: E402
from cogleague.core.game import (  # noqa: E402
    Action,
    Event,
    Game,
    Parsed,
    Step,
    StepDecisions,
    Timing,
    Turn,
)
from cogleague.core.replay import LogEntry  # noqa: E402
from cogleague.core.text import first_object  # noqa: E402
from cogleague.seats.factory import ModelOptions  # noqa: E402
from cogleague.seats.llm import make_model_seat  # noqa: E402

SWEEP = (1, 8, 64)
TARGET_RATIO = 1.1
HINT = 'reply with one JSON object {"n": N}, N an integer 0..9'


class RoundGame(Game):
    """N seats; every round each names a number 0..9; score = the sum. Benchmark only."""

    name = "round-bench"
    rules_version = "round-bench-1"

    def __init__(self, seats: int, rounds: int, timeout_s: float) -> None:
        self.num_seats = seats
        self.policy_names = ["llm"] * seats
        self.rounds = rounds
        self._timing = Timing(decision_timeout_s=timeout_s, retries=1)
        self.scores = [0] * seats
        self.played = 0
        self.open = False
        self.finished = False

    def start(self) -> list[Event]:
        return []

    @property
    def between_rounds(self) -> bool:
        return not self.open and not self.finished

    @property
    def rounds_played(self) -> int:
        return self.played

    @property
    def done(self) -> bool:
        return self.finished

    def open_round(self) -> list[Event]:
        self.open = True
        return [Event("round", {"round": self.played})]

    def step(self) -> Step:
        r = self.played
        return Step.of([Turn(f"r{r}p{s}", s, {"n": [0, 9]}, lambda s=s: {"seat": s, "round": r},
                     lambda view: f"Round {view['round'] + 1}. You are seat {view['seat']}. "
                                  f"{HINT}.", round=r)
                        for s in range(self.num_seats)], r)

    def parse(self, turn: Turn, raw: Any) -> Parsed:
        doc = first_object(raw) if isinstance(raw, str) else raw
        n = doc.get("n") if isinstance(doc, dict) else None
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 9:
            raise IllegalAction("n must be an integer 0..9", hint=HINT, code="parse")
        return Parsed({"n": n})

    def apply_step(self, decisions: StepDecisions) -> list[Event]:
        for t in self.step().turns():
            d = decisions.get(t.turn_id)
            self.scores[t.seat] += d.action["n"] if d is not None else 0
        self.open = False
        self.played += 1
        self.finished = self.played >= self.rounds
        return [Event("settled", {"round": self.played - 1})]

    def fallback(self, turn: Turn) -> Action:
        return {"n": 0}

    def stop(self, reason: str, detail: str | None = None) -> list[Event]:
        self.finished = True
        return []

    def results(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "reason": "complete"}

    def timing(self) -> Timing:
        return self._timing

    def make_baseline(self, name: str, seat: int) -> Any:
        raise NotImplementedError

    def system_text(self, seat: int) -> str:
        return f"You play seat {seat} of a number game."


REPLIES = {"round-bench": '{"n": 3}', "ledger": '{"move": 0}',
           "commons": '{"harvest": 1, "clean": 1, "message": "fair shares"}'}


@contextmanager
def provider_server(latency: float, text: str) -> Iterator[str]:
    """The test server in a child process answering `text` after `latency` s; yields its URL."""
    server = ROOT / "tests" / "helpers" / "provider_server.py"
    env_path = f"{ROOT / 'tests'}"
    proc = subprocess.Popen([sys.executable, str(server), "--latency", str(latency),
                             "--text", text], stdout=subprocess.PIPE, text=True,
                            env={"PYTHONPATH": env_path, "PATH": ""})
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise RuntimeError("the provider test server did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def server_stats(url: str) -> dict[str, int]:
    with urllib.request.urlopen(f"{url}/_stats", timeout=5) as response:
        stats: dict[str, int] = json.load(response)
    return stats


async def round_times(game: Game, options: ModelOptions) -> tuple[list[float], int, float]:
    """Wall seconds of each round (open → settled), the number of fallbacks, and this process's
    CPU seconds for the episode. Seats are made first (the first one imports the SDK)."""
    seats = [make_model_seat(game, s, "llm", options) for s in range(game.num_seats)]
    cpu = time.process_time()
    opened: list[float] = []
    times: list[float] = []

    async def observer(entry: LogEntry, _game: Game) -> None:
        if entry.op == "open":
            opened.append(time.perf_counter())
        elif entry.op == "apply":
            times.append(time.perf_counter() - opened[-1])

    outcome = await run_episode(game, seats, observer=observer)
    fallbacks = sum(1 for step in outcome.log.decisions for d in step.values() if d.is_fallback)
    return times, fallbacks, time.process_time() - cpu


def make_game(name: str, seats: int, rounds: int, latency: float) -> Game:
    timeout = max(5.0, 4 * latency)
    if name == "round-bench":
        return RoundGame(seats, rounds, timeout)
    from cogleague.games.registry import get

    info = get(name)
    if name == "ledger":
        return info.make(None, {"rounds": max(rounds, 4), "decision_timeout_s": timeout}, 7,
                         ["llm"] * seats)
    return info.make("cleanup", {"rounds": rounds, "num_players": seats,
                                 "decision_timeout_seconds": int(timeout),
                                 "round_seconds": int(timeout) + 5}, 7, ["llm"] * seats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per reply (L)")
    parser.add_argument("--provider", choices=("openai", "anthropic"), default="openai")
    parser.add_argument("--rounds", type=int, default=3, help="rounds measured per line")
    parser.add_argument("--games", action="store_true",
                        help="also measure Ledger (8 seats) and Commons Family (12 seats)")
    args = parser.parse_args()
    lines: list[tuple[str, int]] = [("round-bench", n) for n in SWEEP]
    if args.games:
        lines += [("ledger", 8), ("commons", 12)]
    print(f"provider {args.provider} (official SDK) → test server process on loopback, "
          f"L = {args.latency:.2f} s, {args.rounds} rounds per line")
    print(f"{'game':<12} {'N':>3} {'round p50 s':>12} {'round max s':>12} "
          f"{'max/L':>6} {'peak in flight':>15} {'fallbacks':>9} {'cpu ms/request':>14} "
          f"{'server ms/req':>13}")
    worst = 0.0
    for name, n in lines:
        with provider_server(args.latency, REPLIES[name]) as url:
            base = f"{url}/v1" if args.provider == "openai" else url
            options = ModelOptions(provider=args.provider, model="bench", base_url=base,
                                   api_key="bench")
            game = make_game(name, n, args.rounds, args.latency)
            before = server_stats(url)
            times, fallbacks, cpu = asyncio.run(round_times(game, options))
            stats = server_stats(url)
        requests = max(1, stats["requests"] - before["requests"])
        server_cpu = stats["cpu_s"] - before["cpu_s"]
        ratio = max(times) / args.latency
        worst = max(worst, ratio)
        print(f"{name:<12} {n:>3} {statistics.median(times):>12.3f} {max(times):>12.3f} "
              f"{ratio:>6.2f} {stats['peak_in_flight']:>15} {fallbacks:>9} "
              f"{cpu * 1000 / requests:>14.2f} {server_cpu * 1000 / requests:>13.2f}")
    verdict = "ok" if worst <= TARGET_RATIO else "OVER TARGET"
    print(f"worst round / L = {worst:.2f} (target ≤ {TARGET_RATIO}) {verdict}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (cpu ms/request: this process — "
          "runner, seats, SDK, HTTP — per request; server ms/req: the test server process's "
          "own CPU, not counted in the former)")


if __name__ == "__main__":
    main()
