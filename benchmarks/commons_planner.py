"""Commons planner benchmark: per default config, the planner's time and figures (rules §9),
then six `random` seats against each seed's own optimum.

    python benchmarks/commons_planner.py [--random N] [--variants a,b]

Times are CPU seconds of one uncached computation (`compute_optimum`, which also replays
the plan through the engine). The random check plays N episodes per variant (episode i:
seed = variant seed + i) and counts any welfare above that seed's optimum (must be 0).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from cogleague.core.episode import play_headless
from cogleague.games.commons import make_game
from cogleague.games.commons.config import make_config
from cogleague.games.commons.planner import compute_optimum, plan_optimum
from cogleague.seats.factory import make_seats

VARIANTS = ["cleanup", "harvest-open", "harvest-closed", "harvest-partnership",
            "allelopathic", "mushrooms", "certification"]
REFERENCE = {"cleanup": 239.0, "harvest-open": 312.0, "harvest-closed": 312.0,
             "harvest-partnership": 312.0, "allelopathic": 500.0, "mushrooms": 222.0}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--random", type=int, default=500)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    args = ap.parse_args()
    os.environ.setdefault("COGLEAGUE_CACHE_DIR", tempfile.mkdtemp(prefix="planner-bench-"))
    variants = args.variants.split(",")
    print(f"{'variant':22} {'optimum':>12} {'upper':>12} {'exact':>6} {'cpu s':>7} "
          f"{'ref':>7} {'diff':>9}  method")
    for v in variants:
        t = time.process_time()
        d = compute_optimum(make_config(v))
        cpu = time.process_time() - t
        ref = REFERENCE.get(v)
        diff = f"{d['optimum_achieved'] - ref:+9.4f}" if ref is not None else f"{'':>9}"
        print(f"{v:22} {d['optimum_achieved']:12.6f} {d['upper_bound']:12.6f} "
              f"{d['exact']!s:>6} {cpu:7.2f} {ref if ref else '':>7} {diff}  {d['method']}",
              flush=True)
    if args.random <= 0:
        return
    print(f"\nsix random seats, {args.random} episodes each (seed = variant seed + i)")
    for v in variants:
        base = make_config(v).seed
        t = time.process_time()
        worst, above = float("inf"), 0
        for i in range(args.random):
            game = make_game(v, {}, base + i, ["random"] * 6)
            play_headless(game, make_seats(game, ["random"] * 6))
            best = plan_optimum(make_config(v, seed=base + i))["optimum_achieved"]
            worst = min(worst, best - game.welfare())
            above += game.welfare() > best + 1e-9
        print(f"{v:22} episodes above optimum: {above}   smallest margin: {worst:.3f}   "
              f"cpu {time.process_time() - t:.1f} s", flush=True)


if __name__ == "__main__":
    main()
