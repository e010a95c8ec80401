"""RL environment throughput per game, next to the same episodes played headless by the runner.

For every installed game that declares an RL encoding (descriptor ``extras["rl"]``) this
plays its default line-up of baselines once, turns every logged action into its action index
(free text — promises, chat, notes — has no index and is dropped) and then times, interleaved
in the same run, the very same fixed-action episodes three ways:

- ``runner``: `play_headless` with seats that answer each turn's decoded action from a dict
  (the cheapest possible seats: what is left is the game and the runner);
- ``env``: `parallel_env(views=False)`, every seat an agent answering the same indices (adds
  the observation encoding, masks, infos, rewards and pausing the runner);
- ``env+views``: the same with the protocol view in every info (as `parallel_env` defaults).

Both sides play byte-identical replays (checked). Overhead = env time / runner time − 1, on
CPU time of this process, best of `--repeat`. Then, for the dilemma-style single-agent view,
Gymnasium's `SyncVectorEnv` and `AsyncVectorEnv` against one environment, in wall time.

    .venv/bin/python benchmarks/env_steps.py [--episodes 20] [--repeat 5] [--vector 4]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cogleague.core import jsonio
from cogleague.core.episode import play_headless
from cogleague.envs import parallel_env, single_agent_env
from cogleague.envs.encoding import encoding_of
from cogleague.games import registry
from cogleague.seats.factory import make_seats


class Answer:
    """A seat that answers each turn from a fixed dict (kind scripted: the fast path)."""

    kind = "scripted"

    def __init__(self, actions: dict[str, Any], name: str) -> None:
        self.actions = actions
        self.name = name

    def decide_now(self, turn: Any) -> Any:
        return self.actions[turn.turn_id]


def schedule(desc: Any, seed: int) -> tuple[dict[str, int], dict[str, Any]]:
    """Action indices and their decoded actions for one episode of the default line-up."""
    variant = desc.default_variant
    game = desc.new_game(variant, {}, seed)
    logged = {tid: d.action for e in play_headless(game, make_seats(game, game.policy_names))
              .log.entries if e.decisions for tid, d in e.decisions.items()}
    enc = encoding_of(desc)
    env = parallel_env(desc.name, variant=variant, policy_names=game.policy_names, views=False)
    env.reset(seed=seed)
    index: dict[str, int] = {}
    decoded: dict[str, Any] = {}
    while env.agents:
        chosen = {}
        for agent in env.agents:
            turn = env.current_turn(agent)
            if turn is None:
                chosen[agent] = 0
                continue
            i = enc.encode(env.game, turn, logged[turn.turn_id])
            index[turn.turn_id] = i
            decoded[turn.turn_id] = enc.decode(env.game, turn, i)
            chosen[agent] = i
        env.step(chosen)
    return index, decoded


def run_runner(desc: Any, seed: int, decoded: dict[str, Any]) -> tuple[int, Any]:
    game = desc.new_game(desc.default_variant, {}, seed)
    out = play_headless(game, [Answer(decoded, n) for n in game.policy_names])
    steps = sum(1 for e in out.log.entries if e.op == "apply")
    return steps, lambda: jsonio.dumps(desc.replay_document(game, out.log))


def run_env(env: Any, seed: int, index: dict[str, int]) -> tuple[int, Any]:
    env.reset(seed=seed)
    steps = 0
    agents = env.possible_agents
    while env.agents:
        chosen = {}
        for agent in agents:
            turn = env.current_turn(agent)
            chosen[agent] = 0 if turn is None else index[turn.turn_id]
        env.step(chosen)
        steps += 1
    driver, desc = env.driver, env.spec_.desc  # replays are built outside the timings
    return steps, lambda: jsonio.dumps(desc.replay_document(driver.game, driver.outcome.log))


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def bench_game(desc: Any, episodes: int, repeat: int) -> dict[str, float]:
    seeds = list(range(1, episodes + 1))
    plans = {s: schedule(desc, s) for s in seeds}
    names = desc.new_game(desc.default_variant, {}, 1).policy_names
    envs = {views: parallel_env(desc.name, variant=desc.default_variant, policy_names=names,
                                views=views) for views in (False, True)}
    best = {"runner": float("inf"), "env": float("inf"), "env+views": float("inf")}
    game_steps = env_steps = 0
    for _ in range(repeat):
        t, outs = timed(lambda: [run_runner(desc, s, plans[s][1]) for s in seeds])
        best["runner"] = min(best["runner"], t)
        game_steps = sum(o[0] for o in outs)
        for views, key in ((False, "env"), (True, "env+views")):
            t, env_outs = timed(lambda v=views: [run_env(envs[v], s, plans[s][0])
                                                 for s in seeds])
            best[key] = min(best[key], t)
            env_steps = sum(o[0] for o in env_outs)
            assert [o[1]() for o in env_outs] == [o[1]() for o in outs], "replays differ"
    return {"episodes": episodes, "game_steps": game_steps, "env_steps": env_steps, **best}


def bench_vector(game: str, n: int, steps: int) -> dict[str, float]:
    """Single-agent environments stepped one by one, in `SyncVectorEnv` and `AsyncVectorEnv`."""
    from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

    def make() -> Any:
        return single_agent_env(game, views=False)

    out: dict[str, float] = {}
    one = make()
    one.reset(seed=0)
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    for _ in range(steps * n):
        _, _, done, _, _ = one.step(int(rng.integers(one.action_space.n)))
        if done:
            one.reset()
    out["single"] = steps * n / (time.perf_counter() - t)
    for label, cls in (("sync", SyncVectorEnv), ("async", AsyncVectorEnv)):
        vec = cls([make for _ in range(n)])
        vec.reset(seed=0)
        t = time.perf_counter()
        for _ in range(steps):
            vec.step(vec.action_space.sample())
        out[label] = steps * n / (time.perf_counter() - t)
        vec.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--vector", type=int, default=4, help="environments per vector env")
    ap.add_argument("--vector-steps", type=int, default=1500)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; CPU time, best of "
          f"{args.repeat}, {args.episodes} episodes per game")
    print(f"{'game':10s} {'runner ep/s':>11s} {'env ep/s':>9s} {'env steps/s':>12s} "
          f"{'overhead':>9s} {'+views ep/s':>12s} {'+views':>8s}")
    games = [d for d in registry.available() if "rl" in d.extras]
    for desc in games:
        r = bench_game(desc, args.episodes, args.repeat)
        n = r["episodes"]
        print(f"{desc.name:10s} {n / r['runner']:11.1f} {n / r['env']:9.1f} "
              f"{r['env_steps'] / r['env']:12.0f} {r['env'] / r['runner'] - 1:9.1%} "
              f"{n / r['env+views']:12.1f} {r['env+views'] / r['runner'] - 1:8.1%}")
    for desc in games:
        v = bench_vector(desc.name, args.vector, args.vector_steps // args.vector)
        print(f"single-agent {desc.name}: {v['single']:.0f} steps/s one env, "
              f"{v['sync']:.0f} SyncVectorEnv x{args.vector}, "
              f"{v['async']:.0f} AsyncVectorEnv x{args.vector} (wall time)")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
