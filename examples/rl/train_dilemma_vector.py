"""Train a Prisoner's Dilemma policy on the batch engine's vector environment, then seat it at
rules-engine tables, where it scores exactly what it scored in training's engine.

    python examples/rl/train_dilemma_vector.py --out runs/rl/dilemma-vector.npz

The learner plays seat 0 of a 4-seat standard table (20 rounds per pairing) against line-ups
drawn from the baselines that have an array twin (`POOL`). Evolution strategies as in
`train_dilemma.py` (antithetic perturbations, centred ranks, Adam), but every candidate of a
generation plays at once: one `vector_env` per line-up holds `population x tables` tables and
table block p is played by candidate p (a batched MLP, numpy only).

The saved file is then played on held-out seeds twice: in the vector environment (each table's
observation through the policy file's own `logits`, as a `policy:PATH` seat computes them) and
by `cogleague.play` with ``policy:PATH`` at the rules engine's table. The two must give the
same score on every table — the batch engine and the rules engine are one rulebook.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import cogleague
from cogleague.core.config import int_arg, number_arg
from cogleague.envs import vector_env
from cogleague.seats.policy import load_policy, save_policy

GAME = "dilemma"
POOL = ["tit_for_tat", "always_cooperate", "always_defect", "grim_trigger", "pavlov",
        "generous_tit_for_tat", "random"]
SEATS = 4
HIDDEN = 16
HELD_OUT = 10**9


def lineups(rng: np.random.Generator, count: int) -> list[list[str]]:
    return [[POOL[int(k)] for k in rng.integers(len(POOL), size=SEATS - 1)]
            for _ in range(count)]


def batched_logits(params: list[np.ndarray], obs: np.ndarray) -> np.ndarray:
    """Logits of P candidates, each for its own block of tables: params are (P, …) stacks,
    obs (P, T, inputs)."""
    y = obs
    for i in range(0, len(params), 2):
        y = np.einsum("poi,pti->pto", params[i], y) + params[i + 1][:, None, :]
        if i + 2 < len(params):
            y = np.tanh(y)
    return y


def unpack(theta: np.ndarray, shapes: Sequence[tuple[int, ...]]) -> list[np.ndarray]:
    """A (P, size) stack of flat parameter vectors as (P, *shape) arrays, layer by layer."""
    out, at = [], 0
    for shape in shapes:
        n = int(np.prod(shape))
        out.append(theta[:, at:at + n].reshape((theta.shape[0], *shape)))
        at += n
    return out


def scores(theta: np.ndarray, shapes: Sequence[tuple[int, ...]], opponents: list[str],
           tables: int, seed: int) -> np.ndarray:
    """Each candidate's mean score over `tables` tables of one line-up, all played at once."""
    pop = theta.shape[0]
    env = vector_env(GAME, num_envs=pop * tables, opponents=opponents)
    obs, _ = env.reset(seed=seed)
    params = unpack(theta, shapes)
    while True:
        logits = batched_logits(params, obs.reshape(pop, tables, -1).astype(np.float64))
        obs, _, done, _, infos = env.step(logits.argmax(axis=2).reshape(-1))
        if done.all():
            return np.asarray(infos["score"]).reshape(pop, tables).mean(axis=1)


def evolve(size: int, fitness: Callable[[np.ndarray, np.random.Generator], np.ndarray],
           generations: int, population: int, sigma: float, lr: float, seed: int) -> np.ndarray:
    """Evolution strategies over a flat parameter vector: antithetic perturbations, centred
    ranks, Adam. `fitness(candidates (P, size), rng)` scores every candidate at once."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 0.1, size)
    m, v = np.zeros(size), np.zeros(size)
    pairs = population // 2
    ranks = np.linspace(-0.5, 0.5, 2 * pairs)
    started = time.perf_counter()
    for gen in range(generations):
        eps = rng.normal(size=(pairs, size))
        fit = fitness(np.concatenate([theta + sigma * eps, theta - sigma * eps]), rng)
        shaped = np.empty(2 * pairs)
        shaped[np.argsort(fit)] = ranks
        grad = ((shaped[:pairs] - shaped[pairs:])[:, None] * eps).sum(0) / (2 * pairs * sigma)
        t = gen + 1
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        theta = theta + lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        print(f"generation {gen + 1:3d}: mean candidate score {fit.mean():6.2f}"
              f" ({time.perf_counter() - started:5.1f} s)", flush=True)
    return theta


def train(generations: int, population: int, tables: int, per_generation: int, sigma: float,
          lr: float, seed: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    probe = vector_env(GAME, num_envs=1, opponents=POOL[:SEATS - 1])
    inputs = probe.single_observation_space.shape[0]
    shapes = [(HIDDEN, inputs), (HIDDEN,), (2, HIDDEN), (2,)]

    def fitness(cands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        fit = np.zeros(cands.shape[0])
        for opponents in lineups(rng, per_generation):
            fit += scores(cands, shapes, opponents, tables, int(rng.integers(10**8)))
        return fit / per_generation

    size = sum(int(np.prod(s)) for s in shapes)
    return shapes, evolve(size, fitness, generations, population, sigma, lr, seed)


def both_engines(path: Path, opponents: list[str], tables: int) -> tuple[list[float],
                                                                           list[float]]:
    """Seat 0's score per held-out table: in the vector env (the file's own logits) and by
    `cogleague.play` at the rules engine's table (``policy:PATH``)."""
    policy = load_policy(path)
    env = vector_env(GAME, num_envs=tables, opponents=opponents)
    obs, _ = env.reset(seed=HELD_OUT)
    while True:
        actions = [int(np.argmax(policy.logits(row))) for row in obs]
        obs, _, done, _, infos = env.step(np.array(actions))
        if done.all():
            break
    batch = [float(x) for x in infos["score"]]
    rules = [cogleague.play(GAME, [f"policy:{path}", *opponents], seed=HELD_OUT + i).scores[0]
             for i in range(tables)]
    return batch, rules


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generations", type=int_arg(1, 100_000), default=60)
    parser.add_argument("--population", type=int_arg(2, 10_000, even=True), default=32)
    parser.add_argument("--tables", type=int_arg(1, 100_000), default=16,
                        help="tables per candidate")
    parser.add_argument("--lineups", type=int_arg(1, 1_000), default=4,
                        help="line-ups per generation")
    parser.add_argument("--sigma", type=number_arg(0, 10, above=True), default=0.1)
    parser.add_argument("--lr", type=number_arg(0, 10, above=True), default=0.05)
    parser.add_argument("--seed", type=int_arg(0, 2**63 - 1), default=0)
    parser.add_argument("--check", type=int_arg(1, 100_000), default=20,
                        help="held-out tables per line-up")
    parser.add_argument("--out", type=Path, default=Path("runs/rl/dilemma-vector.npz"))
    args = parser.parse_args(argv)
    shapes, theta = train(args.generations, args.population, args.tables, args.lineups,
                          args.sigma, args.lr, args.seed)
    params = unpack(theta[None, :], shapes)
    layers = [(params[0][0], params[1][0], "tanh"), (params[2][0], params[3][0], "linear")]
    signature = {"encoding": "dilemma.rl.v1", "observation_size": shapes[0][1], "actions": 2}
    save_policy(args.out, GAME, signature, layers, {"trained_on": "vector_env"})
    report: dict[str, Any] = {}
    for opponents in (["tit_for_tat", "pavlov", "always_defect"],
                      ["generous_tit_for_tat", "random", "grim_trigger"]):
        batch, rules = both_engines(args.out, opponents, args.check)
        assert batch == rules, f"the engines differ against {opponents}: {batch} vs {rules}"
        report[",".join(opponents)] = float(np.mean(batch))
        print(f"against {', '.join(opponents)}: mean {np.mean(batch):.2f} over {args.check} "
              f"held-out tables, equal in both engines")
    return report


if __name__ == "__main__":
    main()
