"""How fast the command line answers before it does any work: `cogleague --help`,
`cogleague play --help`, argument errors, and `cogleague games`, each the median wall and CPU
time of fresh processes, beside `python -c pass` measured in the same run (target: ≤ 0.25 s
wall for `--help` and an argument error on an idle machine; the ratios to `python -c pass`
carry over between machines better than the seconds do). `--pythonpath SRC` runs another
checkout's sources (its `src/`) with this environment, to set two versions side by side.

    .venv/bin/python benchmarks/cli_startup.py [--runs 9] [--pythonpath SRC]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_S = 0.25
CLI = str(Path(sys.executable).with_name("cogleague"))

CASES: list[tuple[str, list[str], bool]] = [  # label, argv, held to the target
    ("python -c pass", [sys.executable, "-c", "pass"], False),
    ("cogleague --help", [CLI, "--help"], True),
    ("cogleague play ledger --seed (argument error)", [CLI, "play", "ledger", "--seed"], True),
    ("cogleague play nosuch (unknown game)", [CLI, "play", "nosuch"], True),
    ("cogleague play ledger --seed x (no integer: the game's seed range)",
     [CLI, "play", "ledger", "--seed", "x"], True),
    ("cogleague play ledger --rounds 99 (out of range)", [CLI, "play", "ledger", "--rounds",
                                                          "99"], True),
    ("cogleague play --help", [CLI, "play", "--help"], False),
    ("cogleague games", [CLI, "games"], False),
]


def wall(argv: list[str], runs: int, pythonpath: str | None = None
         ) -> tuple[float, float, float]:
    """Median and best wall time, and median CPU time (user + system, which a loaded machine
    inflates less), of `runs` fresh processes (one warm-up run first)."""
    env = {**os.environ, "COLUMNS": "80"}
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath,
                                                          env.get("PYTHONPATH")]))
    times, cpu = [], []
    for i in range(runs + 1):
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env=env)
        _, _, usage = os.wait4(child.pid, 0)
        child.returncode = 0  # reaped above
        if i:
            times.append(time.perf_counter() - start)
            cpu.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(times), min(times), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--pythonpath", help="sources to run instead of the installed ones")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    first = wall(CASES[0][1], args.runs)  # `python -c pass`: what every ratio divides by
    base, _, base_cpu = first
    print(f"load average {load:.1f}; median of {args.runs} runs each; target ≤ {TARGET_S} s "
          "wall for the marked rows on an idle machine")
    print(f"{'command':50} {'median':>7} {'best':>7} {'÷ python':>8} {'CPU':>7} {'÷ python':>8}")
    for i, (label, argv, held) in enumerate(CASES):
        median, best, cpu = first if i == 0 else wall(argv, args.runs, args.pythonpath)
        mark = (" ok" if median <= TARGET_S else " OVER") if held else ""
        print(f"{label:50} {median:6.3f}s {best:6.3f}s {median / base:7.1f}× {cpu:6.3f}s "
              f"{cpu / base_cpu:7.1f}×{mark}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
