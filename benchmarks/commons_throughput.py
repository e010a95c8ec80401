"""Commons Family throughput: 20-round six-seat all-scripted episodes per second, per module.

Each episode is played as users call it — the descriptor builds the game (`desc.new_game`),
the seat factory the seats, the one runner plays it (`play_headless`) — and its replay document
is built by the descriptor and serialized with `core.jsonio` (sorted keys, the format's own
form), as `cogleague play --out` writes it. Target: ≥ 500 episodes/s per module on one core,
serialized. `--mode document` stops after building the document, `--mode play` after play.
If the planner exists (`cogleague.games.commons.planner`), its time per default config is
printed too.

    .venv/bin/python benchmarks/commons_throughput.py [--seconds 3] [--profile MODULE]
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import os
import pstats
import time
import timeit

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.games import registry
from cogleague.seats.factory import make_seats

TARGET = 500.0
VARIANT_OF = {"cleanup": "cleanup", "harvest": "harvest-open", "allelopathic": "allelopathic",
              "mushrooms": "mushrooms"}
LINEUP = ["steward", "free_rider", "cleaner", "punisher", "reciprocator", "random"]


MODE = {"mode": "json"}


def episode(variant: str, seed: int) -> None:
    desc = registry.get("commons")
    game = desc.new_game(variant, {}, seed, LINEUP)
    outcome = play_headless(game, make_seats(game, LINEUP))
    if MODE["mode"] == "play":
        return
    doc = desc.replay_document(game, outcome.log)
    if MODE["mode"] == "json":
        jsonio.dumpb(doc, sort_keys=desc.replay_sort_keys)


def rate(variant: str, seconds: float) -> tuple[float, float]:
    """(episodes per wall-clock second, episodes per CPU second of this process).

    The CPU figure is what one free core would give; on a shared machine the wall figure
    also pays for other processes."""
    episode(variant, 0)  # warm up imports and caches
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        episode(variant, n)
        n += 1
    return n / (time.perf_counter() - start), n / (time.process_time() - cpu)


def planner_timing() -> None:
    if importlib.util.find_spec("cogleague.games.commons.planner") is None:
        print("planner: not present, skipped")
        return
    planner = importlib.import_module("cogleague.games.commons.planner")
    if not hasattr(planner, "plan_optimum"):
        print("planner: package present but no plan_optimum yet, skipped")
        return
    from cogleague.games.commons.config import VARIANTS, make_config

    for variant in VARIANTS:
        start = time.perf_counter()
        result = planner.plan_optimum(make_config(variant))
        print(f"planner {variant:<20} {time.perf_counter() - start:7.2f} s  "
              f"optimum {result['optimum_achieved']:.3f}  bound {result['upper_bound']:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="measuring time per module")
    ap.add_argument("--profile", choices=list(VARIANT_OF), help="profile one module instead")
    ap.add_argument("--no-planner", action="store_true", help="skip the planner timing")
    ap.add_argument("--mode", choices=("json", "document", "play"), default="json")
    args = ap.parse_args()
    MODE["mode"] = args.mode
    if args.profile:
        variant = VARIANT_OF[args.profile]
        for i in range(3):  # imports and first-call caches stay out of the profile
            episode(variant, i)
        prof = cProfile.Profile()
        prof.runcall(lambda: [episode(variant, i) for i in range(200)])
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    print(f"line-up: {','.join(LINEUP)}; 20 rounds; mode {args.mode} (json: replay document "
          f"serialized); JSON backend {jsonio.BACKEND}; target {TARGET:.0f}/s")
    calibration = timeit.timeit("sum(range(1000))", number=2000) / 2000 * 1e6
    print(f"calibration: sum(range(1000)) takes {calibration:.1f} µs here; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for module, variant in VARIANT_OF.items():
        wall, cpu = rate(variant, args.seconds)
        print(f"{module:<13} {wall:8.0f} episodes/s wall  {cpu:8.0f} episodes/s per CPU "
              f"second  {'ok' if cpu >= TARGET else 'BELOW TARGET'}")
    if not args.no_planner:
        planner_timing()


if __name__ == "__main__":
    main()
