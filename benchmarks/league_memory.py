"""Peak memory of a league run against its size: the peak RSS of a 10,000-episode run divided by
a 1,000-episode one (target ≤ 1.2: memory stays flat however long the league).

Each size runs in a fresh process (one worker, this machine's SQLite) so that its peak RSS is
its own. The league is `cogleague league init`'s example cut down to the Prisoner's Dilemma
(fast episodes keep the 10,000-episode run short); `--games all` keeps every game.

    .venv/bin/python benchmarks/league_memory.py [--small 1000] [--large 10000] [--games all]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 1.2


def league_file(directory: Path, episodes: int, all_games: bool) -> Path:
    from cogleague.league.example import example_league

    text = re.sub(r"(?m)^episodes = \d+.*$", "episodes = 1", example_league())
    blocks = text.split("\n[[games]]\n")  # table headers only, not the comments naming them
    games = [b for b in blocks[1:] if all_games or 'name = "dilemma"' in b]
    per_game = max(1, episodes // len(games))
    games = [re.sub(r"(?m)^episodes = \d+.*$", "", g).rstrip() + f"\nepisodes = {per_game}\n"
             for g in games]
    path = directory / f"league-{episodes}.toml"
    path.write_text(blocks[0] + "".join("\n[[games]]\n" + g for g in games), encoding="utf-8")
    return path


def child(path: str) -> None:
    from cogleague.league import config, runner

    cfg = config.load(path)
    started = time.perf_counter()
    summary = runner.run(cfg, runner.make_backend("local", 1))
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"played": summary.played, "failed": summary.failed,
                      "seconds": time.perf_counter() - started, "peak_kib": peak_kib}))


def run(size: int, directory: Path, all_games: bool) -> dict[str, float]:
    path = league_file(directory, size, all_games)
    out = subprocess.run([sys.executable, __file__, "--child", str(path)], check=True,
                         capture_output=True, text=True, env=os.environ.copy())
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=10000)
    parser.add_argument("--games", choices=("dilemma", "all"), default="dilemma")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (args.small, args.large):
            rows.append((size, run(size, Path(tmp), args.games == "all")))
    print(f"{'episodes':>9} {'played':>7} {'seconds':>8} {'peak RSS MiB':>13}")
    for size, r in rows:
        print(f"{size:>9} {r['played']:>7.0f} {r['seconds']:>8.1f} {r['peak_kib'] / 1024:>13.1f}")
    ratio = rows[1][1]["peak_kib"] / rows[0][1]["peak_kib"]
    print(f"peak RSS {args.large} ÷ {args.small} episodes: {ratio:.2f} (target ≤ {TARGET}) "
          f"{'ok' if ratio <= TARGET else 'OVER TARGET'}; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
