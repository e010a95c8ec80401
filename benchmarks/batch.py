"""The batch engine against the rules engine (and the Axelrod library), side by side in one run.

- dilemma: a 200-round round robin of five classic strategies (tit_for_tat, always_cooperate,
  always_defect, grim_trigger, pavlov — Axelrod's TitForTat, Cooperator, Defector, Grudger,
  WinStayLoseShift) over `--tables` tables, in decisions per CPU second, against Axelrod's
  `Match` over the same ten pairs; every table's points must equal Axelrod's;
- Ledger: 14-round episodes of the default line-up per CPU second, the kernel (reset, every
  step and the scores) against the rules engine (`play_headless`, results only), each the best
  of `--repeat` runs; the scores must be equal, table by table, on a sample;
- Commons Family, each module: 20-round episodes of a mixed line-up of baselines per CPU
  second, the kernel against the rules engine; the scores must be equal on a sample;
- the vector environments with random legal actions at B = `--envs`: agent-steps per second
  (every seat an agent, `parallel_vector_env`);
- a league of `--league` dilemma episodes of baselines, wall time with the store, the rules
  engine on a process pool against the batch kernels; the standings must be equal.

Timings are CPU seconds of this process (the machine may be shared; its load is printed) and,
for the rules engine and Axelrod, the best of `--repeat` runs.

    .venv/bin/python benchmarks/batch.py [--tables 10000] [--envs 4096] [--repeat 3] [--league N]
        [--only dilemma|ledger|commons]
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from collections.abc import Callable
from itertools import combinations
from typing import Any

import numpy as np

import cogleague
from cogleague.core.batch import BatchGame, batch_of, play_lineup
from cogleague.core.episode import play_headless
from cogleague.envs import parallel_vector_env
from cogleague.games import registry
from cogleague.seats import ScriptedSeat

ROUNDS = 200
DILEMMA = ["tit_for_tat", "always_cooperate", "always_defect", "grim_trigger", "pavlov"]
AXELROD = ["TitForTat", "Cooperator", "Defector", "Grudger", "WinStayLoseShift"]


def _batch(game: str) -> BatchGame:
    batch = batch_of(registry.get(game))
    assert batch is not None, f"{game} declares no batch kernel"
    return batch


def cpu(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """(best CPU seconds, the last result) of `repeat` calls."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return best, out


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def dilemma(tables: int, repeat: int) -> None:
    kernel = _batch("dilemma").kernel("classic200", {}, len(DILEMMA))
    decisions = len(list(combinations(DILEMMA, 2))) * ROUNDS * 2
    seeds = list(range(tables))
    secs, (state, _) = cpu(lambda: play_lineup(kernel, seeds, DILEMMA))
    points = kernel.scores(state)
    assert (points == points[0]).all(), "deterministic strategies: every table the same"
    batch_rate = tables * decisions / secs
    rules_secs, result = cpu(lambda: cogleague.play("dilemma", DILEMMA, seed=1,
                                                     variant="classic200"), repeat)
    assert [float(x) for x in result.scores] == points[0].tolist()
    rules_rate = decisions / rules_secs
    line = (f"dilemma round robin, {tables:,} tables x {decisions:,} decisions: batch "
            f"{batch_rate:,.0f} decisions/CPU s; rules engine {rules_rate:,.0f} "
            f"({batch_rate / rules_rate:.0f}x)")
    try:
        import axelrod as axl
    except ImportError:
        print(line + "; axelrod not installed (pip install -e '.[bench]')")
        return

    players = [getattr(axl, name) for name in AXELROD]

    def round_robin() -> list[int]:
        totals = [0] * len(players)
        for i, j in combinations(range(len(players)), 2):
            match = axl.Match((players[i](), players[j]()), turns=ROUNDS)
            match.play()
            a, b = match.final_score()
            totals[i] += a
            totals[j] += b
        return totals

    ax_secs, ax_points = cpu(round_robin, repeat)
    assert [float(x) for x in ax_points] == points[0].tolist(), (ax_points, points[0])
    ax_rate = decisions / ax_secs
    print(f"{line}; axelrod Match {ax_rate:,.0f} -> batch is {batch_rate / ax_rate:.0f}x "
          f"Axelrod (target 50x), same points {points[0].astype(int).tolist()}")


def _scored(kernel: Any, seeds: list[int], lineup: list[str]) -> Any:
    state, _ = play_lineup(kernel, seeds, lineup)
    return kernel.scores(state)


def ledger(tables: int, repeat: int) -> None:
    desc = registry.get("ledger")
    lineup = desc.default_lineup("standard")
    kernel = _batch("ledger").kernel("standard", {}, 8)
    seeds = list(range(tables))
    # the kernel's run includes the scores (the medians), as the rules engine's results do
    secs, scores = cpu(lambda: _scored(kernel, seeds, lineup), repeat)
    batch_rate = tables / secs

    def rules(n: int) -> list[list[float]]:
        out = []
        for seed in range(n):
            game = desc.make("standard", {}, seed, lineup, None)
            seats = [ScriptedSeat(game.make_baseline(name, i), name)
                     for i, name in enumerate(lineup)]
            out.append(list(play_headless(game, seats).results["scores"]))
        return out

    sample = min(tables, 200)
    rules_secs, got = cpu(lambda: rules(sample), repeat)
    assert got == scores[:sample].tolist(), "scores differ from the rules engine"
    rules_rate = sample / rules_secs
    print(f"ledger 14 rounds, {tables:,} tables: batch {batch_rate:,.0f} episodes/CPU s; "
          f"rules engine {rules_rate:,.0f} -> {batch_rate / rules_rate:.1f}x (target 50x); "
          f"scores equal on {sample} seeds")


COMMONS = ["steward", "free_rider", "cleaner", "punisher", "deterrable", "fair_share"]
COMMONS_VARIANTS = ["cleanup", "harvest-open", "harvest-closed", "allelopathic", "mushrooms"]


def commons(tables: int, repeat: int) -> None:
    desc = registry.get("commons")
    batch = _batch("commons")
    for variant in COMMONS_VARIANTS:
        kernel = batch.kernel(variant, {}, len(COMMONS))
        seeds = list(range(tables))
        secs, (state, _) = cpu(lambda k=kernel, s=seeds: play_lineup(k, s, COMMONS))
        scores = kernel.scores(state)
        batch_rate = tables / secs

        def rules(n: int, v: str = variant) -> list[list[float]]:
            out = []
            for seed in range(n):
                game = desc.make(v, {}, seed, COMMONS, None)
                seats = [ScriptedSeat(game.make_baseline(name, i), name)
                         for i, name in enumerate(COMMONS)]
                out.append(list(play_headless(game, seats).results["scores"]))
            return out

        sample = min(tables, 200)
        rules_secs, got = cpu(lambda m=sample: rules(m), repeat)
        assert got == scores[:sample].tolist(), f"{variant}: scores differ from the rules"
        rules_rate = sample / rules_secs
        print(f"commons {variant}, 20 rounds, {tables:,} tables: batch {batch_rate:,.0f} "
              f"episodes/CPU s; rules engine {rules_rate:,.0f} -> "
              f"{batch_rate / rules_rate:.0f}x (target 30x); scores equal on {sample} seeds")


def vector(game: str, envs: int, steps: int) -> None:
    env = parallel_vector_env(game, num_envs=envs)
    _, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    agents = env.possible_agents
    secs = 0.0  # in env.step only: drawing the random actions is the policy's time
    for _ in range(steps):
        actions = {}
        for a in agents:
            mask = infos[a]["action_mask"]
            k = (rng.random(envs) * mask.sum(axis=1)).astype(np.int64)
            actions[a] = np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1)
        start = time.process_time()
        _, _, _, _, infos = env.step(actions)
        secs += time.process_time() - start
    rate = envs * len(agents) * steps / secs
    print(f"{game} parallel_vector_env, B = {envs:,}, random legal actions: "
          f"{rate:,.0f} agent-steps/CPU s in step ({steps} steps, every seat an agent)")


LEAGUE = """
[league]
name = "bench"
seed = 1
episodes = {episodes}

[[policies]]
name = "reciprocator"
baseline = "tit_for_tat"

[[policies]]
name = "defector"
baseline = "always_defect"

[[policies]]
name = "grudger"
baseline = "grim_trigger"

[[policies]]
name = "win-stay"
baseline = "pavlov"

[[policies]]
name = "coin"
baseline = "random"

[[games]]
name = "dilemma"
variants = ["standard"]
seats = 4
"""


def league(episodes: int) -> None:
    """The same league file played twice, wall time: the rules engine on a pool of every
    core, then the batch kernels; the standings must be equal."""
    import tempfile
    from pathlib import Path

    from cogleague.league import config as league_config
    from cogleague.league import runner
    from cogleague.league.rankings import standings_json

    with tempfile.TemporaryDirectory() as tmp:
        wall, docs = {}, {}
        for engine in ("rules", "batch"):
            path = Path(tmp) / f"{engine}.toml"
            path.write_text(LEAGUE.format(episodes=episodes), encoding="utf-8")
            cfg = league_config.load(path)
            pool = runner.make_backend("local", os.cpu_count() or 1)
            start = time.perf_counter()
            summary = runner.run(cfg, pool, engine=engine)
            wall[engine] = time.perf_counter() - start
            assert summary.failed == 0, summary
            docs[engine] = standings_json(cfg.store_url, resamples=200)
        assert docs["rules"] == docs["batch"], "the standings differ"
        print(f"league of {summary.played:,} dilemma episodes (baselines, 4 seats, 20 rounds), "
              f"wall time with the store: rules engine on {os.cpu_count()} processes "
              f"{wall['rules']:.1f} s, batch {wall['batch']:.1f} s -> "
              f"{wall['rules'] / wall['batch']:.1f}x (target 20x); same standings")


GAMES = ("dilemma", "ledger", "commons")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--league", type=int, default=10_000, help="league episodes (0: skip)")
    parser.add_argument("--only", choices=GAMES, help="one game's rows (and its vector env)")
    args = parser.parse_args()
    gc.freeze()
    print(load())
    games = [args.only] if args.only else list(GAMES)
    if "dilemma" in games:
        dilemma(args.tables, args.repeat)
    if "ledger" in games:
        ledger(args.tables, args.repeat)
    if "commons" in games:
        commons(args.tables, args.repeat)
    for game, steps in (("dilemma", 200), ("ledger", 56), ("commons", 40)):
        if game in games:
            vector(game, args.envs, steps)
    if args.league and not args.only:
        league(args.league)
    print(load())


if __name__ == "__main__":
    main()
