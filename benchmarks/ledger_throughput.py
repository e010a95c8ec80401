"""Ledger throughput: all-scripted 14-round episodes per second on one core, via the one runner
(`play_headless`), without and with building the replay document and dumping it to JSON.

    .venv/bin/python benchmarks/ledger_throughput.py [--seconds 5]

Target: >= 500 episodes/s including the replay document (without frames; frames are optional
and rebuildable — their rate is printed too).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.games.ledger import GAME, LedgerGame
from cogleague.seats import ScriptedSeat

LINEUP = GAME.default_lineup("standard")


def episode(seed: int, replay: str) -> int:
    """Play one episode; `replay` is "none", "document" or "frames". Returns bytes written."""
    game: LedgerGame = GAME.make("standard", {}, seed, LINEUP)  # type: ignore[assignment]
    seats = [ScriptedSeat(game.make_baseline(n, i), n) for i, n in enumerate(LINEUP)]
    outcome = play_headless(game, seats)
    if replay == "none":
        return len(jsonio.dumps(outcome.results))
    doc = game.replay_document(outcome.log, frames=replay == "frames")
    return len(jsonio.dumps(doc))


def rate(fn: Callable[[int], int], seconds: float) -> tuple[float, float, int]:
    """Episodes per wall-clock second and per CPU second of this process over about `seconds`
    (after a short warm-up). On a shared machine the CPU figure is the steadier one."""
    for seed in range(20):
        fn(seed)
    n, size = 0, 0
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        size = fn(n)
        n += 1
    return n / (time.perf_counter() - wall), n / (time.process_time() - cpu), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    args = parser.parse_args()
    for label, mode in (("results only", "none"), ("+ replay document + JSON dump", "document"),
                        ("+ replay with frames + JSON dump", "frames")):
        wall, cpu, size = rate(lambda seed, m=mode: episode(seed, m), args.seconds)
        print(f"ledger 14-round all-scripted episodes/s, {label}: {wall:,.0f} wall-clock, "
              f"{cpu:,.0f} per CPU second ({size:,} bytes each)")


if __name__ == "__main__":
    main()
