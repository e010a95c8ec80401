"""Ledger throughput: all-scripted 14-round episodes per second on one core, via the one runner
(`play_headless`), with results only, with the replay document plus its JSON dump, with the
replay's frames too, and through `cogleague.play` with the default replay's bytes as `save`
writes them (frames included, spliced as text: `GameDescriptor.replay_json`).

    .venv/bin/python benchmarks/ledger_throughput.py [--seconds 10]

Targets: >= 1,000 episodes/s per CPU second including the replay document and its
JSON dump (frames are optional and rebuildable; their rate is printed for reference);
`cogleague.play` with its default replay written >= 0.5x the engine alone (results only); and
that replay's build + encode (`Result.replay_json`, timed apart) <= 1.5x the engine. The
modes run in interleaved batches so that a shared, busy machine slows them alike; each is
reported per wall-clock second and per CPU second of this process (the steadier figure when
other processes compete for the cores).
"""

from __future__ import annotations

import argparse
import os
import time

import cogleague
from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.games.ledger import GAME, LedgerGame
from cogleague.seats import ScriptedSeat

LINEUP = GAME.default_lineup("standard")
MODES = {  # mode → (label, episodes per batch)
    "none": ("results only", 20),
    "document": ("+ replay document + JSON dump", 20),
    "frames": ("+ replay with frames + JSON dump", 4),
    "play": ("cogleague.play + default replay bytes", 10),
}


def episode(seed: int, mode: str) -> tuple[int, float]:
    """Play one episode and build what `mode` asks for; returns the bytes serialized and, for
    `play`, the CPU seconds its replay's bytes took (build + encode, after the episode)."""
    if mode == "play":
        result = cogleague.play("ledger", seed=seed)
        c = time.process_time()
        size = len(result.replay_json)
        return size, time.process_time() - c
    game = GAME.make("standard", {}, seed, LINEUP)
    assert isinstance(game, LedgerGame)
    seats = [ScriptedSeat(game.make_baseline(n, i), n) for i, n in enumerate(LINEUP)]
    outcome = play_headless(game, seats)
    if mode == "none":
        return len(jsonio.dumps(outcome.results)), 0.0
    return len(jsonio.dumps(game.replay_document(outcome.log, frames=mode == "frames"))), 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="total measuring time")
    args = parser.parse_args()
    for mode in MODES:  # warm-up
        episode(0, mode)
    wall = dict.fromkeys(MODES, 0.0)
    cpu = dict.fromkeys(MODES, 0.0)
    count = dict.fromkeys(MODES, 0)
    size = dict.fromkeys(MODES, 0)
    replay_cpu = 0.0  # the play mode's replay bytes alone
    seed, started = 1, time.perf_counter()
    while time.perf_counter() - started < args.seconds:
        for mode, (_, batch) in MODES.items():
            w, c = time.perf_counter(), time.process_time()
            for _ in range(batch):
                size[mode], spent = episode(seed, mode)
                replay_cpu += spent
                seed += 1
            wall[mode] += time.perf_counter() - w
            cpu[mode] += time.process_time() - c
            count[mode] += batch
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other processes "
          "slow the wall-clock figures; the per-CPU-second ones less so)")
    for mode, (label, _) in MODES.items():
        print(f"ledger 14-round all-scripted episodes/s, {label}: "
              f"{count[mode] / wall[mode]:,.0f} wall-clock, {count[mode] / cpu[mode]:,.0f} per "
              f"CPU second ({count[mode]} episodes, {size[mode]:,} bytes each)")
    rate = {mode: count[mode] / cpu[mode] for mode in MODES}
    print(f"cogleague.play with the default replay ÷ the engine alone: "
          f"{rate['play'] / rate['none']:.2f}× per CPU second (target >= 0.5)")
    print(f"the default replay's build + encode ÷ the engine alone: "
          f"{replay_cpu / count['play'] * rate['none']:.2f}× per CPU second (target <= 1.5)")


if __name__ == "__main__":
    main()
