"""Train a Prisoner's Dilemma policy against a mixed pool of baselines, on a CPU, with numpy.

    python examples/rl/train_dilemma.py --out runs/rl/dilemma.npz    # ~3-6 minutes
    cogleague play dilemma --seats policy:runs/rl/dilemma.npz,tit_for_tat,pavlov,always_defect

The learner plays seat 0 of a 4-seat standard table (20 rounds per pairing) in
`cogleague.envs.single_agent_env`; the other three seats are drawn from `POOL` at every reset.
The policy is a small MLP (24 → 16 tanh → 2 logits) that plays its highest logit; it is trained
by evolution strategies (antithetic Gaussian perturbations, centred ranks, Adam), whose fitness
is the greedy policy's mean episode score over a few training seeds shared by each
perturbation pair — so what is trained is exactly the deterministic policy that will be
seated. No deep-learning framework: numpy only.

Afterwards it is saved as a policy file (`cogleague.seats.policy`) and evaluated on held-out
seeds through the ordinary seat factory and runner (``policy:PATH`` exactly as the CLI and the
league seat it), next to `tit_for_tat` in the same seat against the same opponents and seeds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cogleague.core.config import int_arg, number_arg
from cogleague.core.episode import play_headless
from cogleague.envs import single_agent_env
from cogleague.envs.encoding import encoding_of
from cogleague.games import registry
from cogleague.seats.factory import make_seats
from cogleague.seats.policy import save_policy

GAME = "dilemma"
POOL = ["tit_for_tat", "always_cooperate", "always_defect", "grim_trigger", "pavlov",
        "generous_tit_for_tat", "random", "promise_keeper", "silver_tongue"]
SEATS = 4
HELD_OUT = 10**9  # evaluation seeds start here; training seeds are drawn below 10**8
HIDDEN = 16


class MLP:
    """Flat parameter vector <-> the layers a policy file stores (PyTorch shapes [out, in]).
    ``hidden = 0`` is a linear policy (one layer)."""

    def __init__(self, inputs: int, hidden: int, outputs: int) -> None:
        sizes = [inputs, hidden, outputs] if hidden else [inputs, outputs]
        self.shapes: list[tuple[int, ...]] = []
        for n_in, n_out in itertools.pairwise(sizes):
            self.shapes += [(n_out, n_in), (n_out,)]
        self.size = sum(math.prod(s) for s in self.shapes)

    def unpack(self, theta: np.ndarray) -> list[np.ndarray]:
        out, at = [], 0
        for shape in self.shapes:
            n = math.prod(shape)
            out.append(theta[at:at + n].reshape(shape))
            at += n
        return out

    def layers(self, theta: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, str]]:
        p = self.unpack(theta)
        pairs = [(p[i], p[i + 1]) for i in range(0, len(p), 2)]
        return [(w, b, "tanh" if i < len(pairs) - 1 else "linear")
                for i, (w, b) in enumerate(pairs)]

    @staticmethod
    def logits(params: list[np.ndarray], obs: np.ndarray) -> np.ndarray:
        y = obs
        for i in range(0, len(params), 2):
            y = params[i] @ y + params[i + 1]
            if i + 2 < len(params):
                y = np.tanh(y)
        return y

    def act(self, params: list[np.ndarray], obs: np.ndarray) -> int:
        return int(np.argmax(self.logits(params, obs)))


def episode_score(env: Any, net: MLP, theta: np.ndarray, seed: int) -> float:
    """One episode of the greedy policy (the one that will be seated) from `seed`."""
    params = net.unpack(theta)
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, done, _, info = env.step(net.act(params, obs))
    return float(info["score"])


def fitness(env: Any, net: MLP, theta: np.ndarray, seeds: Sequence[int]) -> float:
    return float(np.mean([episode_score(env, net, theta, s) for s in seeds]))


def train(generations: int, population: int, episodes: int, sigma: float, lr: float,
          seed: int, log_every: int = 5, curve_seeds: int = 24,
          hidden: int = HIDDEN) -> tuple[MLP, np.ndarray, list[dict[str, float]]]:
    """Evolution strategies; returns the net, its parameters and the learning curve."""
    env = single_agent_env(GAME, pool=POOL, seats=SEATS, views=False)
    net = MLP(env.observation_space.shape[0], hidden, int(env.action_space.n))
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 0.1, net.size)
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    pairs = population // 2
    ranks = np.linspace(-0.5, 0.5, 2 * pairs)
    # a fixed set of training-range seeds to draw the curve on (not the held-out ones)
    probe = [int(s) for s in np.random.default_rng(seed + 1).integers(10**8, size=curve_seeds)]
    curve: list[dict[str, float]] = []
    started = time.perf_counter()
    for gen in range(generations + 1):
        if gen % log_every == 0 or gen == generations:
            score = fitness(env, net, theta, probe)
            curve.append({"generation": gen, "episodes": gen * (2 * pairs * episodes),
                          "score": score, "seconds": time.perf_counter() - started})
            print(f"generation {gen:3d}: mean score {score:6.2f} on {curve_seeds} probe seeds "
                  f"({time.perf_counter() - started:5.1f} s)", flush=True)
        if gen == generations:
            break
        seeds = [int(s) for s in rng.integers(10**8, size=episodes)]
        eps = rng.normal(size=(pairs, net.size))
        scores = np.empty(2 * pairs)
        for i in range(pairs):
            scores[2 * i] = fitness(env, net, theta + sigma * eps[i], seeds)
            scores[2 * i + 1] = fitness(env, net, theta - sigma * eps[i], seeds)
        shaped = np.empty(2 * pairs)
        shaped[np.argsort(scores)] = ranks
        grad = ((shaped[0::2] - shaped[1::2])[:, None] * eps).sum(0) / (2 * pairs * sigma)
        t = gen + 1  # Adam ascent on the shaped ES gradient
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        theta = theta + lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    env.close()
    return net, theta, curve


def held_out_lineups(count: int) -> list[tuple[int, list[str]]]:
    """Held-out seeds and the three opponents each one draws from the pool."""
    out = []
    for i in range(count):
        seed = HELD_OUT + i
        rng = np.random.default_rng(seed)
        out.append((seed, [POOL[int(k)] for k in rng.integers(len(POOL), size=SEATS - 1)]))
    return out


def seat_scores(seat_ref: str, lineups: Sequence[tuple[int, list[str]]]) -> list[float]:
    """Seat 0's score per held-out table, played by the runner as `cogleague play` does."""
    desc = registry.get(GAME)
    scores = []
    for seed, others in lineups:
        names = [seat_ref, *others]
        game = desc.make(None, {}, seed, names, None)
        results = play_headless(game, make_seats(game, names)).results
        scores.append(float(results["scores"][0]))
    return scores


def interval(xs: Sequence[float]) -> dict[str, float]:
    """Mean and a normal-approximation 95 % interval (1.96 standard errors)."""
    a = np.asarray(xs, dtype=float)
    half = 1.96 * a.std(ddof=1) / math.sqrt(len(a)) if len(a) > 1 else float("nan")
    return {"mean": float(a.mean()), "low": float(a.mean() - half),
            "high": float(a.mean() + half), "n": len(a)}


REFERENCES = ("tit_for_tat", "always_defect")
"""Baselines seated in the learner's place on the same tables: tit_for_tat is the bar to beat;
always_defect shows what plain exploitation of this pool earns."""


def evaluate(policy_path: Path, tables: int) -> dict[str, Any]:
    lineups = held_out_lineups(tables)
    learned = seat_scores(f"policy:{policy_path}", lineups)
    report: dict[str, Any] = {"tables": tables, "pool": POOL, "policy": interval(learned)}
    for name in REFERENCES:
        ref = seat_scores(name, lineups)
        report[name] = interval(ref)
        report[f"policy - {name}"] = interval([a - b for a, b in zip(learned, ref,
                                                                     strict=True)])
    return report


def print_report(report: dict[str, Any]) -> None:
    for key in ("policy", *REFERENCES, *(f"policy - {n}" for n in REFERENCES)):
        r = report[key]
        print(f"{key:26s} {r['mean']:7.2f}  95% CI [{r['low']:.2f}, {r['high']:.2f}]  "
              f"(n = {r['n']} held-out tables)")


def plot(curve: list[dict[str, float]], reference: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=110)
    ax.plot([c["episodes"] for c in curve], [c["score"] for c in curve], marker="o", ms=3,
            label="ES policy (seat 0)")
    ax.axhline(reference, color="tab:red", ls="--", label="tit_for_tat, same probe tables")
    ax.set_xlabel("training episodes")
    ax.set_ylabel("mean score per episode")
    ax.set_title("Dilemma: ES policy vs a mixed pool of baselines")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generations", type=int_arg(1, 100_000), default=40)
    ap.add_argument("--population", type=int_arg(2, 10_000, even=True), default=16,
                    help="perturbations per generation")
    ap.add_argument("--episodes", type=int_arg(1, 100_000), default=6,
                    help="training seeds per perturbation")
    ap.add_argument("--sigma", type=number_arg(0, 10, above=True), default=0.1)
    ap.add_argument("--lr", type=number_arg(0, 10, above=True), default=0.05)
    ap.add_argument("--seed", type=int_arg(0, 2**63 - 1), default=0)
    ap.add_argument("--hidden", type=int_arg(0, 4096), default=HIDDEN,
                    help="hidden units (0: linear)")
    ap.add_argument("--tables", type=int_arg(2, 100_000), default=400,
                    help="held-out evaluation tables")
    ap.add_argument("--probe", type=int_arg(1, 100_000), default=24,
                    help="tables the learning curve is drawn on")
    ap.add_argument("--out", type=Path, default=Path("runs/rl/dilemma.npz"))
    ap.add_argument("--curve", type=Path, default=None, help="learning-curve PNG")
    ap.add_argument("--report", type=Path, default=None, help="evaluation JSON")
    ap.add_argument("--evaluate-only", action="store_true",
                    help="skip training: evaluate the policy file at --out")
    args = ap.parse_args(argv)
    if args.evaluate_only:
        report = evaluate(args.out, args.tables)
        print_report(report)
        return report
    started = time.perf_counter()
    net, theta, curve = train(args.generations, args.population, args.episodes, args.sigma,
                              args.lr, args.seed, curve_seeds=args.probe, hidden=args.hidden)
    trained_s = time.perf_counter() - started
    desc = registry.get(GAME)
    game = desc.new_game(None, {}, 0, ["tit_for_tat"] * SEATS)
    signature = encoding_of(desc).signature(game)
    save_policy(args.out, GAME, signature, net.layers(theta),
                meta={"trainer": "examples/rl/train_dilemma.py (evolution strategies)",
                      "pool": POOL, "seats": SEATS, "generations": args.generations,
                      "population": args.population, "episodes": args.episodes,
                      "hidden": args.hidden,
                      "seed": args.seed})
    print(f"saved {args.out} after {trained_s:.1f} s of training")
    report = evaluate(args.out, args.tables)
    report.update(train_seconds=trained_s, curve=curve)
    print_report(report)
    if args.curve is not None:
        probe_env_ref = _tft_probe_reference(args.seed, args.probe)
        plot(curve, probe_env_ref, args.curve)
        print(f"wrote {args.curve}")
    if args.report is not None:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(report, indent=1), encoding="utf-8")
        print(f"wrote {args.report}")
    return report


def _tft_probe_reference(seed: int, curve_seeds: int = 24) -> float:
    """tit_for_tat's mean score on the probe tables the curve is drawn on (same draws)."""
    env = single_agent_env(GAME, pool=POOL, seats=SEATS, views=False)
    probe = [int(s) for s in np.random.default_rng(seed + 1).integers(10**8, size=curve_seeds)]
    total = 0.0
    for s in probe:
        env.reset(seed=s)
        game = env.game
        names = list(game.policy_names)
        names[0] = "tit_for_tat"
        g2 = registry.get(GAME).make(None, {}, s, names, None)
        total += float(play_headless(g2, make_seats(g2, names)).results["scores"][0])
    return total / len(probe)


if __name__ == "__main__":
    main()
