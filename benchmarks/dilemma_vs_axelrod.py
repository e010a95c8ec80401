"""Prisoner's Dilemma tables vs the Axelrod library: same strategies, same points, and speed.

Five players — tit_for_tat, always_cooperate, always_defect, grim_trigger, pavlov against
Axelrod's TitForTat, Cooperator, Defector, Grudger, WinStayLoseShift — play a full round robin of
200 rounds per pairing, promises off, in one process. The script asserts that every seat's total
points equal Axelrod's, then prints decisions per second for both and the ratio.

Like with like: our table has no self-play, so Axelrod's side is the round robin of its
`Match` over the same ten unordered pairs (its fastest path; also checked against
`Tournament.scores`, which leaves self-interactions out). Timings are the best of several
interleaved repetitions, in CPU time of this process (the machine may be shared) and wall time.

    .venv/bin/pip install axelrod   # or: pip install -e '.[bench]'
    .venv/bin/python benchmarks/dilemma_vs_axelrod.py [--repeat N] [--episodes N]
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from itertools import combinations

try:
    import axelrod as axl
except ImportError as exc:  # pragma: no cover - the bench extra is optional
    raise SystemExit("this benchmark needs axelrod: pip install -e '.[bench]'") from exc

from cogleague.core.episode import play_headless
from cogleague.games.dilemma import make
from cogleague.seats.factory import make_seats

ROUNDS = 200
SEED = 1
PLAYERS: list[tuple[str, Callable[[], axl.Player]]] = [
    ("tit_for_tat", axl.TitForTat),
    ("always_cooperate", axl.Cooperator),
    ("always_defect", axl.Defector),
    ("grim_trigger", axl.Grudger),
    ("pavlov", axl.WinStayLoseShift),
]
NAMES = [name for name, _ in PLAYERS]
PAIRS = list(combinations(range(len(PLAYERS)), 2))
DECISIONS = len(PAIRS) * ROUNDS * 2  # per round robin, both libraries


def ours() -> list[int]:
    game = make(None, {"rounds_total": ROUNDS, "promises": False}, SEED, NAMES)
    outcome = play_headless(game, make_seats(game, NAMES))
    assert outcome.results["reason"] == "complete"
    return list(outcome.results["scores"])


def axelrod_round_robin() -> list[int]:
    """Every unordered pair once, no self-play: the same matches our table plays."""
    totals = [0] * len(PLAYERS)
    for i, j in PAIRS:
        match = axl.Match((PLAYERS[i][1](), PLAYERS[j][1]()), turns=ROUNDS)
        match.play()
        a, b = match.final_score()
        totals[i] += a
        totals[j] += b
    return totals


def axelrod_tournament_scores() -> list[int]:
    players = [cls() for _, cls in PLAYERS]
    results = axl.Tournament(players, turns=ROUNDS, repetitions=1).play(progress_bar=False)
    return [int(s[0]) for s in results.scores]


def timed(fn: Callable[[], list[int]], episodes: int) -> tuple[float, float]:
    """(CPU seconds, wall seconds) for `episodes` round robins."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(episodes):
        fn()
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="interleaved repetitions")
    parser.add_argument("--episodes", type=int, default=10, help="round robins per repetition")
    args = parser.parse_args()
    # The imports above (axelrod pulls in pandas, scipy, …) leave a large heap; freezing it keeps
    # the cyclic GC from rescanning it during the timed loops, for both libraries alike.
    gc.freeze()

    mine, theirs = ours(), axelrod_round_robin()
    tournament = axelrod_tournament_scores()
    for seat, name in enumerate(NAMES):
        print(f"  seat {seat} {name:<17} cogleague {mine[seat]:>5}  axelrod {theirs[seat]:>5}"
              f"  (Tournament.scores {tournament[seat]})")
    assert mine == theirs == tournament, (mine, theirs, tournament)
    print("points: every seat equals Axelrod's")

    best = {"cogleague": [float("inf")] * 2, "axelrod": [float("inf")] * 2}
    for _ in range(args.repeat):
        for label, fn in (("cogleague", ours), ("axelrod", axelrod_round_robin)):
            cpu, wall = timed(fn, args.episodes)
            best[label] = [min(best[label][0], cpu), min(best[label][1], wall)]
    decisions = DECISIONS * args.episodes
    rate = {k: (decisions / v[0], decisions / v[1]) for k, v in best.items()}
    print(f"{DECISIONS} decisions per round robin; best of {args.repeat} × {args.episodes} "
          "round robins")
    for label, (cpu_rate, wall_rate) in rate.items():
        print(f"  {label:<10} {cpu_rate:>10,.0f} decisions/s (CPU)  {wall_rate:>10,.0f} (wall)")
    print(f"  ratio      {rate['cogleague'][0] / rate['axelrod'][0]:.2f}× (CPU)  "
          f"{rate['cogleague'][1] / rate['axelrod'][1]:.2f}× (wall)")


if __name__ == "__main__":
    main()
