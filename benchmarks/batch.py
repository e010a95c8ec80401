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
  engine on a process pool against the batch kernels; the standings must be equal;
- with `--jax`: the Commons kernel's step and observation under `jax.jit` on this CPU against
  numpy's, each module at B = `--envs` for 20 rounds of random legal actions (XLA without
  FMA, as `tests/batch/test_jax.py` runs it, so the two are equal bit for bit — checked).

Timings are CPU seconds of this process (the machine may be shared; its load is printed) and,
for the rules engine and Axelrod, the best of `--repeat` runs.

    .venv/bin/python benchmarks/batch.py [--tables 10000] [--envs 4096] [--repeat 3] [--league N]
                                         [--only dilemma|ledger|commons|league] [--jax] [--only-jax]
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
    """The same league file played twice on a pool of every core, wall time: the rules engine,
    then the batch kernels (kernel chunks on the same workers); the standings must be equal.
    CPU seconds of the driver and of its workers are printed beside (on a shared machine the
    wall-time ratio moves with the load)."""
    import multiprocessing
    import resource
    import tempfile
    from pathlib import Path

    from cogleague.league import config as league_config
    from cogleague.league import runner
    from cogleague.league.rankings import standings_json

    def used() -> tuple[float, float]:
        me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF,
                                                     resource.RUSAGE_CHILDREN))
        return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime

    with tempfile.TemporaryDirectory() as tmp:
        wall, docs, cpus = {}, {}, {}
        for engine in ("rules", "batch"):
            path = Path(tmp) / f"{engine}.toml"
            path.write_text(LEAGUE.format(episodes=episodes), encoding="utf-8")
            cfg = league_config.load(path)
            pool = runner.make_backend("local", os.cpu_count() or 1)
            before = used()
            start = time.perf_counter()
            summary = runner.run(cfg, pool, engine=engine)
            wall[engine] = time.perf_counter() - start
            for worker in multiprocessing.active_children():  # the run does not wait for its
                worker.join()  # workers' exit: their CPU counts once they are reaped
            after = used()
            cpus[engine] = (after[0] - before[0], after[1] - before[1])
            assert summary.failed == 0, summary
            docs[engine] = standings_json(cfg.store_url, resamples=200)
        assert docs["rules"] == docs["batch"], "the standings differ"
        print(f"league of {summary.played:,} dilemma episodes (baselines, 4 seats, 20 rounds), "
              f"wall time with the store: rules engine on {os.cpu_count()} processes "
              f"{wall['rules']:.1f} s, batch {wall['batch']:.1f} s -> "
              f"{wall['rules'] / wall['batch']:.1f}x (target 20x); same standings")
        for engine, (driver, workers) in cpus.items():
            print(f"  {engine}: CPU s driver {driver:.2f}, workers {workers:.2f}")
        print(f"  CPU ratio (driver + workers): "
              f"{sum(cpus['rules']) / sum(cpus['batch']):.1f}x; {load()}")


def commons_jax(envs: int, rounds: int = 20) -> None:
    """Jitted step + observe against numpy's, per module, CPU and wall seconds."""
    if "--xla_cpu_max_isa" not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_cpu_max_isa=AVX"
    import jax

    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    batch = _batch("commons")
    for variant in [*COMMONS_VARIANTS[:2], "harvest-partnership", *COMMONS_VARIANTS[2:]]:
        np_kernel = batch.kernel(variant, {"rounds": rounds}, len(COMMONS))
        jx_kernel = batch.kernel(variant, {"rounds": rounds}, len(COMMONS), xp=jnp)
        seeds = list(range(envs))
        rng = np.random.default_rng(0)
        legal = np.flatnonzero(np_kernel.mask(np_kernel.reset(seeds[:1]))[0, 0])
        acts = [legal[rng.integers(0, len(legal), size=(envs, len(COMMONS)))]
                for _ in range(rounds)]

        def run(kernel: Any, step: Any, observe: Any, state: Any, moves: list[Any]) -> Any:
            for a in moves:
                state, reward, _ = step(state, a)
                obs = observe(state)
            return state, reward, obs

        state = np_kernel.reset(seeds)
        np_cpu, np_wall = time.process_time(), time.perf_counter()
        want = run(np_kernel, np_kernel.step, np_kernel.observe, state, acts)
        np_cpu, np_wall = time.process_time() - np_cpu, time.perf_counter() - np_wall
        step, observe = jax.jit(jx_kernel.step), jax.jit(jx_kernel.observe)
        jacts = [jnp.asarray(a) for a in acts]
        state = jx_kernel.reset(seeds)
        compile_wall = time.perf_counter()
        jax.block_until_ready(run(jx_kernel, step, observe, state, jacts[:1]))
        compile_wall = time.perf_counter() - compile_wall
        jx_cpu, jx_wall = time.process_time(), time.perf_counter()
        got = jax.block_until_ready(run(jx_kernel, step, observe, state, jacts))
        jx_cpu, jx_wall = time.process_time() - jx_cpu, time.perf_counter() - jx_wall
        assert np.array_equal(np.asarray(got[1]), want[1]), f"{variant}: rewards differ"
        assert np.array_equal(np.asarray(got[2]), want[2]), f"{variant}: observations differ"
        assert np.array_equal(np.asarray(got[0].scores), want[0].scores), variant
        steps = envs * len(COMMONS) * rounds
        print(f"commons {variant} step + observe, B = {envs:,}, {rounds} rounds: numpy "
              f"{steps / np_cpu:,.0f} agent-steps/CPU s ({np_wall:.2f} s wall); jax.jit "
              f"{steps / jx_cpu:,.0f} ({jx_wall:.2f} s wall, compile {compile_wall:.1f} s) "
              f"-> {np_cpu / jx_cpu:.1f}x per CPU s, {np_wall / jx_wall:.1f}x wall; "
              "equal bit for bit")


GAMES = ("dilemma", "ledger", "commons")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--league", type=int, default=10_000, help="league episodes (0: skip)")
    parser.add_argument("--only", choices=[*GAMES, "league"],
                        help="one game's rows (and its vector env), or the league alone")
    parser.add_argument("--jax", action="store_true", help="also the Commons kernel under jax.jit")
    parser.add_argument("--only-jax", action="store_true", help="only the jax.jit part")
    args = parser.parse_args()
    gc.freeze()
    print(load())
    if args.only_jax:
        commons_jax(args.envs)
        print(load())
        return
    if args.only == "league":
        league(args.league)
        print(load())
        return
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
    if args.jax:
        commons_jax(args.envs)
    print(load())


if __name__ == "__main__":
    main()
