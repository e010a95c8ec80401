"""Train a Commons Family policy on the batch engine's vector environment, then seat it at
rules-engine tables, where it scores exactly what it scored in training's engine.

    python examples/rl/train_commons_vector.py --out runs/rl/commons-vector.npz

The learner plays seat 0 of a six-cog cleanup table (20 rounds, sanctions on) against line-ups
drawn from the Commons baselines that have an array twin (`POOL`); an action is an index of
the `commons.rl.v1` encoding (the split of the effort budget and a sanction target), the
highest legal logit as a `policy:PATH` seat plays it. The evolution strategies are
`train_dilemma_vector.py`'s (every candidate of a generation at once, table block p played by
candidate p). The saved file is then played on held-out seeds in the vector environment and by
`cogleague.play` with ``policy:PATH``: the scores must be equal, table by table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import cogleague
from cogleague.core.config import int_arg, number_arg
from cogleague.envs import vector_env
from cogleague.seats.policy import load_policy, save_policy

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:  # the dilemma example's evolution strategies, written once
    sys.path.insert(0, HERE)
from train_dilemma_vector import batched_logits, evolve, unpack  # noqa: E402

GAME, VARIANT = "commons", "cleanup"
POOL = ["steward", "free_rider", "cleaner", "punisher", "deterrable", "fair_share",
        "reciprocator", "random"]
SEATS = 6
HIDDEN = 16
HELD_OUT = 10**9


def lineups(rng: np.random.Generator, count: int) -> list[list[str]]:
    return [[POOL[int(k)] for k in rng.integers(len(POOL), size=SEATS - 1)]
            for _ in range(count)]


def legal_argmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The highest legal logit per row (the first on a tie), as a `policy:PATH` seat picks."""
    return np.where(mask > 0, logits, -np.inf).argmax(axis=-1)


def scores(theta: np.ndarray, shapes: Sequence[tuple[int, ...]], opponents: list[str],
           tables: int, seed: int) -> np.ndarray:
    """Each candidate's mean score over `tables` tables of one line-up, all played at once."""
    pop = theta.shape[0]
    env = vector_env(GAME, num_envs=pop * tables, opponents=opponents, variant=VARIANT)
    obs, infos = env.reset(seed=seed)
    params = unpack(theta, shapes)
    while True:
        logits = batched_logits(params, obs.reshape(pop, tables, -1).astype(np.float64))
        actions = legal_argmax(logits.reshape(pop * tables, -1), infos["action_mask"])
        obs, _, done, _, infos = env.step(actions)
        if done.all():
            return np.asarray(infos["score"]).reshape(pop, tables).mean(axis=1)


def both_engines(path: Path, opponents: list[str], tables: int) -> tuple[list[float],
                                                                           list[float]]:
    """Seat 0's score per held-out table: in the vector env (the file's own logits) and by
    `cogleague.play` at the rules engine's table (``policy:PATH``)."""
    policy = load_policy(path)
    env = vector_env(GAME, num_envs=tables, opponents=opponents, variant=VARIANT)
    obs, infos = env.reset(seed=HELD_OUT)
    while True:
        logits = np.stack([policy.logits(row) for row in obs])
        obs, _, done, _, infos = env.step(legal_argmax(logits, infos["action_mask"]))
        if done.all():
            break
    batch = [float(x) for x in infos["score"]]
    rules = [float(cogleague.play(GAME, [f"policy:{path}", *opponents], seed=HELD_OUT + i,
                                  variant=VARIANT).scores[0]) for i in range(tables)]
    return batch, rules


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generations", type=int_arg(1, 100_000), default=30)
    parser.add_argument("--population", type=int_arg(2, 10_000, even=True), default=16)
    parser.add_argument("--tables", type=int_arg(1, 100_000), default=8,
                        help="tables per candidate")
    parser.add_argument("--lineups", type=int_arg(1, 1_000), default=2,
                        help="line-ups per generation")
    parser.add_argument("--sigma", type=number_arg(0, 10, above=True), default=0.1)
    parser.add_argument("--lr", type=number_arg(0, 10, above=True), default=0.05)
    parser.add_argument("--seed", type=int_arg(0, 2**63 - 1), default=0)
    parser.add_argument("--check", type=int_arg(1, 100_000), default=10,
                        help="held-out tables per line-up")
    parser.add_argument("--out", type=Path, default=Path("runs/rl/commons-vector.npz"))
    args = parser.parse_args(argv)
    probe = vector_env(GAME, num_envs=1, opponents=POOL[:SEATS - 1], variant=VARIANT)
    inputs = probe.single_observation_space.shape[0]
    actions = int(probe.single_action_space.n)
    shapes = [(HIDDEN, inputs), (HIDDEN,), (actions, HIDDEN), (actions,)]

    def fitness(cands: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        fit = np.zeros(cands.shape[0])
        for opponents in lineups(rng, args.lineups):
            fit += scores(cands, shapes, opponents, args.tables, int(rng.integers(10**8)))
        return fit / args.lineups

    size = sum(int(np.prod(s)) for s in shapes)
    theta = evolve(size, fitness, args.generations, args.population, args.sigma, args.lr,
                   args.seed)
    params = unpack(theta[None, :], shapes)
    layers = [(params[0][0], params[1][0], "tanh"), (params[2][0], params[3][0], "linear")]
    cfg = probe.tables.kernel.config
    signature = {"encoding": "commons.rl.v1", "observation_size": inputs, "actions": actions,
                 "module": cfg.module, "num_players": cfg.num_players,
                 "patch_count": cfg.patch_count}
    save_policy(args.out, GAME, signature, layers, {"trained_on": "vector_env"})
    report: dict[str, Any] = {}
    for opponents in (["steward", "free_rider", "punisher", "cleaner", "random"],
                      ["fair_share", "deterrable", "reciprocator", "free_rider", "steward"]):
        batch, rules = both_engines(args.out, opponents, args.check)
        assert batch == rules, f"the engines differ against {opponents}: {batch} vs {rules}"
        report[",".join(opponents)] = float(np.mean(batch))
        print(f"against {', '.join(opponents)}: mean {np.mean(batch):.2f} over {args.check} "
              f"held-out tables, equal in both engines")
    return report


if __name__ == "__main__":
    main()
