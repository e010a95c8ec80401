"""The differential check: a game's batch kernel (``extras["batch"]``) against its rules engine.

Random seeds, random line-ups of the kernel's baselines mixed with seats playing random legal
actions, played once through the rules engine (the PettingZoo `parallel_env`, where a
baseline seat answers with its scripted twin on the turn's own context) and once through the
kernel (array twins, the same random actions). Per seat and per turn the two must show the same
observation, the same mask and the same tally (so the same payoffs per step), and at the end the
same scores, end reasons and any result field the kernel also counts (`result_fields`). Floats
are compared exactly: the kernels replicate the rules engine's arithmetic.

A seat's random actions are one uniform per turn, mapped to a legal index the same way on both
sides, so the two engines see the same actions whatever order they ask in. A variant that fixes
its own seed (Ledger's certification plays only seed 7) is compared at that seed, every
episode, its line-ups and actions still random.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from cogleague.core.batch import BatchGame, BatchKernel, batch_of
from cogleague.core.config import check_int
from cogleague.core.descriptor import GameDescriptor
from cogleague.core.errors import ConfigError
from cogleague.testing.subject import ConformanceError, Subject

RANDOM_SEAT = "rl:random"  # a seat that plays the check's random actions
LONG_ENV = "COGLEAGUE_BATCH_EPISODES"
"""Episodes per game in the long mode (the CI default is `episodes`' bound)."""
MAX_EPISODES = 10**9


def _episode_count(episodes: int) -> int:
    """`episodes`, or the long mode's count when `LONG_ENV` is set (empty: unset); either
    must be a positive integer, refused by its name, never quietly played as one episode."""
    check_int("episodes", episodes, 1, MAX_EPISODES)
    raw = os.environ.get(LONG_ENV, "").strip()
    if not raw:
        return episodes
    try:
        count = int(raw)
    except ValueError:
        raise ConfigError(LONG_ENV, f"{LONG_ENV} must be an integer in 1..{MAX_EPISODES} "
                                    f"(got {raw!r})") from None
    return check_int(LONG_ENV, count, 1, MAX_EPISODES)


def _pick(u: float, mask: np.ndarray[Any, Any] | None, n: int) -> int:
    legal = np.arange(n) if mask is None else np.flatnonzero(mask)
    return int(legal[min(int(u * len(legal)), len(legal) - 1)])


def _lineups(batch: BatchGame, seats: int, count: int, rng: np.random.Generator
             ) -> list[list[str]]:
    """Line-ups: every baseline everywhere once, then random mixes with random seats."""
    pool = [*batch.baselines, RANDOM_SEAT]
    out = [[name] * seats for name in pool]
    while len(out) < count:
        out.append([pool[int(i)] for i in rng.integers(len(pool), size=seats)])
    return out[:count]


def _rules_names(lineup: Sequence[str]) -> list[str]:
    """The policy names the rules engine's table records (a random seat is an env agent)."""
    return [n if n != RANDOM_SEAT else f"rl:seat_{s}" for s, n in enumerate(lineup)]


def _playable(desc: GameDescriptor, variant: str | None, options: dict[str, Any],
              lineup: Sequence[str], seeds: list[int]) -> list[int]:
    """`seeds` when the rules engine plays them all; when the variant fixes its own seed (it
    refuses others, naming `seed`), that seed at every table; any other refusal raises."""
    from cogleague.batch_api import check_seeds

    names = _rules_names(lineup)
    try:
        return check_seeds(desc, variant, options, names, seeds, "seed")
    except ConfigError as exc:
        if exc.field != "seed":
            raise
    fixed = desc.make(variant, dict(options), None, names, None).seed
    if fixed is None:  # a game that draws no seed of its own fixes none: the refusal stands
        return check_seeds(desc, variant, options, names, seeds, "seed")
    return check_seeds(desc, variant, options, names, [fixed] * len(seeds), "seed")


def _rules_episode(desc: GameDescriptor, variant: str | None, options: dict[str, Any],
                   lineup: Sequence[str], seed: int,
                   uniforms: np.ndarray[Any, Any]) -> dict[str, Any]:
    """One episode through the rules engine: per seat the (observation, mask, tally) at each
    turn, the final scores and results."""
    from cogleague.envs import parallel_env

    names = _rules_names(lineup)
    env = parallel_env(desc, variant=variant, policy_names=names, views=False, **options)
    obs, infos = env.reset(seed=seed)
    game = env.game
    enc = env.spec_.enc
    bots = {s: game.make_baseline(n, s) for s, n in enumerate(lineup) if n != RANDOM_SEAT}
    seats = len(lineup)
    turns: list[list[tuple[Any, Any, float]]] = [[] for _ in range(seats)]
    tally = [0.0] * seats
    n_actions = env.spec_.num_actions
    while env.agents:
        actions = {}
        for s, agent in enumerate(env.possible_agents):
            if not infos[agent]["acting"]:
                continue
            turn = env.current_turn(agent)
            mask = infos[agent]["action_mask"]
            k = len(turns[s])
            turns[s].append((obs[agent], mask, tally[s]))
            if s in bots:
                assert turn is not None
                actions[agent] = enc.encode(game, turn, bots[s].act(turn))
            else:
                actions[agent] = _pick(float(uniforms[s, k]), mask, n_actions)
        obs, rewards, _, _, infos = env.step(actions)
        for s, agent in enumerate(env.possible_agents):
            tally[s] += rewards[agent]
    results = game.results()
    scores = [enc.score(results, s) for s in range(seats)]
    env.close()
    return {"turns": turns, "tally": tally, "scores": scores, "results": results}


def _kernel_episodes(kernel: BatchKernel, lineup: Sequence[str], seeds: Sequence[int],
                     uniforms: np.ndarray[Any, Any]) -> dict[str, Any]:
    """The same episodes through the kernel: (B, steps, seats, obs) observations, masks and
    tallies, and the final state's scores, reasons and result fields."""
    names = [None if n == RANDOM_SEAT else n for n in lineup]
    state = kernel.reset(seeds, names)
    policies = {s: kernel.policy(n, s) for s, n in enumerate(lineup) if n != RANDOM_SEAT}
    b, seats = len(seeds), kernel.num_seats
    obs, masks, tallies = [], [], []
    tally = np.zeros((b, seats))
    for k in range(kernel.steps_per_episode):
        o = np.asarray(kernel.observe(state))
        m = kernel.mask(state)
        m = None if m is None else np.asarray(m)
        obs.append(o)
        masks.append(m)
        tallies.append(tally.copy())
        actions = np.zeros((b, seats), dtype=np.int64)
        for s in range(seats):
            if s in policies:
                actions[:, s] = np.asarray(policies[s].act(state))
            else:
                for i in range(b):
                    actions[i, s] = _pick(float(uniforms[i, s, k]),
                                          None if m is None else m[i, s], kernel.num_actions)
        state, reward, done = kernel.step(state, actions)
        tally = tally + np.asarray(reward)
    fields = getattr(kernel, "result_fields", None)
    return {"obs": obs, "masks": masks, "tallies": tallies, "tally": tally,
            "scores": np.asarray(kernel.scores(state)), "reasons": kernel.reasons(state),
            "done": np.asarray(done), "fields": fields(state) if fields else {}}


def _differ(label: str, what: str, a: Any, b: Any) -> ConformanceError:
    return ConformanceError(f"{label}: the batch kernel and the rules engine differ in {what}: "
                            f"rules {a!r}, batch {b!r}")


def check_batch(desc: GameDescriptor, episodes: int = 24, seed: int = 0,
                variant: str | None = None, options: dict[str, Any] | None = None) -> str:
    """Play `episodes` random episodes (of `variant` with the game's `options`) through both
    engines and compare them (raises `ConformanceError` at the first difference).
    `COGLEAGUE_BATCH_EPISODES` overrides the count (the long mode). A game without a kernel
    is skipped."""
    batch = batch_of(desc)
    if batch is None:
        return "skipped: the game declares no batch kernel"
    episodes = _episode_count(episodes)
    variant = variant if variant is not None else desc.default_variant
    options = dict(options or {})
    seats = desc.seats_of(variant, options)
    kernel = batch.kernel(variant, options, seats)
    rng = np.random.default_rng(seed)
    per_lineup = max(1, episodes // (len(batch.baselines) + 1 + 4))
    lineups = _lineups(batch, seats, max(1, -(-episodes // per_lineup)), rng)
    played, fixed = 0, set[int]()
    for lineup in lineups:
        drawn = [int(x) for x in rng.integers(0, 2**31 - 1, size=per_lineup)]
        seeds = _playable(desc, variant, options, lineup, drawn)
        if seeds != drawn:
            fixed.update(seeds)
        uniforms = rng.random((per_lineup, seats, kernel.steps_per_episode))
        got = _kernel_episodes(kernel, lineup, seeds, uniforms)
        for i, s in enumerate(seeds):
            label = f"{desc.name} seed {s} line-up {lineup}"
            want = _rules_episode(desc, variant, options, lineup, s, uniforms[i])
            _compare(label, want, got, i, kernel)
            played += 1
    where = f" at seed {min(fixed)}" if len(fixed) == 1 else ""
    return f"{played} episodes equal in both engines{where} ({len(lineups)} line-ups)"


def check_batch_subject(subject: Subject) -> str:
    """`check_batch` as a conformance check (`cogleague.testing.suite.CHECKS`' signature)."""
    return check_batch(subject.desc)


def _compare(label: str, want: dict[str, Any], got: dict[str, Any], i: int,
             kernel: BatchKernel) -> None:
    for s, turns in enumerate(want["turns"]):
        if len(turns) != kernel.steps_per_episode:
            raise _differ(label, f"seat {s}'s turn count", len(turns), kernel.steps_per_episode)
        for k, (obs, mask, tally) in enumerate(turns):
            b_obs = got["obs"][k][i, s]
            if not np.array_equal(obs, b_obs):
                diff = np.flatnonzero(obs != b_obs)
                raise _differ(label, f"seat {s}'s observation at turn {k} (fields "
                                     f"{diff.tolist()})", obs[diff].tolist(),
                              b_obs[diff].tolist())
            b_mask = got["masks"][k]
            b_mask = np.ones_like(mask) if b_mask is None else b_mask[i, s]
            if not np.array_equal(mask, b_mask):
                raise _differ(label, f"seat {s}'s mask at turn {k}", mask, b_mask)
            if tally != got["tallies"][k][i, s]:
                raise _differ(label, f"seat {s}'s tally before turn {k}", tally,
                              got["tallies"][k][i, s])
    if list(want["tally"]) != got["tally"][i].tolist():
        raise _differ(label, "the final tallies", want["tally"], got["tally"][i].tolist())
    if not bool(got["done"][i]):
        raise _differ(label, "the end", "done", "not done")
    if list(want["scores"]) != got["scores"][i].tolist():
        raise _differ(label, "scores", want["scores"], got["scores"][i].tolist())
    if want["results"].get("reason") != got["reasons"][i]:
        raise _differ(label, "the end reason", want["results"].get("reason"), got["reasons"][i])
    for key, values in got["fields"].items():
        if want["results"].get(key) != np.asarray(values)[i].tolist():
            raise _differ(label, f"results.{key}", want["results"].get(key),
                          np.asarray(values)[i].tolist())
