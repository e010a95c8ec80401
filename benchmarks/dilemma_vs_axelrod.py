"""Prisoner's Dilemma tables vs the Axelrod library: same strategies, same points, and speed.

Five players — tit_for_tat, always_cooperate, always_defect, grim_trigger, pavlov against
Axelrod's TitForTat, Cooperator, Defector, Grudger, WinStayLoseShift — play a full round robin of
200 rounds per pairing, promises off, in one process. The script asserts that every seat's total
points equal Axelrod's, then prints decisions per second for both and the ratio.

Like with like: our table has no self-play, so Axelrod's side is the round robin of its
`Match` over the same ten unordered pairs (its fastest path; also checked against
`Tournament.scores`, which leaves self-interactions out). For reference the script also times
Axelrod's own round-robin runner, `Tournament.play`, which adds the five self-play matches
(counted in its decisions) and writes every interaction to a file — once without and once with
building its result set. With a log on both sides: our replay document built and encoded against
each `Match`'s interactions encoded as JSON. Timings are the best of several interleaved
repetitions, in CPU time of this process (the machine may be shared) and wall time.

    .venv/bin/pip install axelrod   # or: pip install -e '.[bench]'
    .venv/bin/python benchmarks/dilemma_vs_axelrod.py [--repeat N] [--episodes N]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import tempfile
import time
from collections.abc import Callable
from itertools import combinations

try:
    import axelrod as axl
except ImportError as exc:  # pragma: no cover - the bench extra is optional
    raise SystemExit("this benchmark needs axelrod: pip install -e '.[bench]'") from exc

import cogleague

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
    """One round robin through the public API, as users call it (`cogleague.play`; the replay
    document and JSON are built only when asked for, as Axelrod keeps no log either)."""
    result = cogleague.play("dilemma", NAMES, seed=SEED, rounds_total=ROUNDS, promises=False)
    assert result.results["reason"] == "complete"
    return [int(s) for s in result.scores]


def ours_with_replay() -> list[int]:
    """The same, with its replay document built and encoded as `Result.save` writes it."""
    result = cogleague.play("dilemma", NAMES, seed=SEED, rounds_total=ROUNDS, promises=False)
    result.replay_json  # noqa: B018 - the bytes are what is measured
    return [int(s) for s in result.scores]


def axelrod_round_robin_json() -> list[int]:
    """Axelrod's round robin with each match's interactions encoded as JSON (its log)."""
    totals = [0] * len(PLAYERS)
    for i, j in PAIRS:
        match = axl.Match((PLAYERS[i][1](), PLAYERS[j][1]()), turns=ROUNDS)
        interactions = match.play()
        json.dumps([[a.value, b.value] for a, b in interactions])
        a, b = match.final_score()
        totals[i] += a
        totals[j] += b
    return totals


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


def axelrod_tournament(build_results: bool) -> list[int]:
    """Axelrod's own round-robin runner (with self-play), interactions written to a file."""
    players = [cls() for _, cls in PLAYERS]
    handle, path = tempfile.mkstemp(suffix=".csv")
    os.close(handle)
    try:
        axl.Tournament(players, turns=ROUNDS, repetitions=1).play(
            progress_bar=False, build_results=build_results, filename=path)
    finally:
        os.unlink(path)
    return []


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

    self_play = len(PLAYERS) * ROUNDS * 2
    contenders: list[tuple[str, Callable[[], list[int]], int, int]] = [
        ("cogleague.play", ours, DECISIONS, args.episodes),
        ("axelrod Match round robin", axelrod_round_robin, DECISIONS, args.episodes),
        ("cogleague.play + replay encoded", ours_with_replay, DECISIONS, args.episodes),
        ("axelrod Match + interactions JSON", axelrod_round_robin_json, DECISIONS,
         args.episodes),
        ("axelrod Tournament.play, no results", lambda: axelrod_tournament(False),
         DECISIONS + self_play, args.episodes),
        ("axelrod Tournament.play", lambda: axelrod_tournament(True), DECISIONS + self_play, 1),
    ]
    best = {label: [float("inf")] * 2 for label, *_ in contenders}
    for _ in range(args.repeat):
        for label, fn, _, episodes in contenders:
            cpu, wall = timed(fn, episodes)
            best[label] = [min(best[label][0], cpu / episodes), min(best[label][1],
                                                                    wall / episodes)]
    rate = {label: (n / best[label][0], n / best[label][1]) for label, _, n, _ in contenders}
    print(f"{DECISIONS} decisions per round robin ({DECISIONS + self_play} with Axelrod's "
          f"self-play); best of {args.repeat} interleaved repetitions; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for label, (cpu_rate, wall_rate) in rate.items():
        # a log against a log: the encoded replay against the JSON-encoded interactions
        ours_cpu, ours_wall = rate["cogleague.play + replay encoded" if "JSON" in label
                                   else "cogleague.play"]
        ratio = "" if label.startswith("cogleague") else (
            f"   cogleague is {ours_cpu / cpu_rate:.2f}× (CPU), {ours_wall / wall_rate:.2f}× "
            "(wall)")
        print(f"  {label:<36} {cpu_rate:>9,.0f}/s CPU {wall_rate:>9,.0f}/s wall{ratio}")


if __name__ == "__main__":
    main()
