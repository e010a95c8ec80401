"""The vector environments over the batch kernels: Gymnasium's vector API, next-step
autoreset, and every table equal to the rules engine's single-agent environment."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium.utils import env_checker
from gymnasium.utils.env_checker import data_equivalence

from cogleague.core.errors import ConfigError, IllegalAction
from cogleague.envs import parallel_vector_env, single_agent_env, vector_env
from cogleague.envs.table import SEED_SPACE

TABLES: list[tuple[str, str | None, dict[str, Any], list[str]]] = [
    ("dilemma", None, {"rounds_total": 4},
     ["tit_for_tat", "generous_tit_for_tat", "random"]),
    ("dilemma", "classic200", {"rounds_total": 6, "seats": 5},
     ["grim_trigger", "pavlov", "random", "always_defect"]),
    ("ledger", "quickfire", {}, ["mirror", "shark", "grim", "saint", "opportunist", "mirror",
                                 "grim"]),
    ("commons", "harvest-closed", {"rounds": 5, "sanctions_enabled": True},
     ["punisher", "random", "deterrable", "fair_share", "reciprocator"]),
]
IDS = [f"{g}-{v}" for g, v, _, _ in TABLES]


def _legal(rng: np.random.Generator, masks: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize(("game", "variant", "options", "opponents"), TABLES, ids=IDS)
def test_every_table_is_the_rules_engines_episode(game: str, variant: str | None,
                                                  options: dict[str, Any],
                                                  opponents: list[str]) -> None:
    """Table i of reset(seed=s) plays the single-agent env's episode of seed s + i: the same
    observations, rewards, end and score for the same actions."""
    b = 3
    venv = vector_env(game, num_envs=b, opponents=opponents, variant=variant, **options)
    singles = [single_agent_env(game, opponents=opponents, variant=variant, views=False,
                                **options) for _ in range(b)]
    obs, infos = venv.reset(seed=40)
    got = [env.reset(seed=40 + i) for i, env in enumerate(singles)]
    rng = np.random.default_rng(1)
    done = np.zeros(b, dtype=bool)
    steps = 0
    while not done.all():
        for i, (o, info) in enumerate(got):
            assert np.array_equal(obs[i], o), (i, steps)
            assert np.array_equal(infos["action_mask"][i], info["action_mask"])
        assert obs in venv.observation_space
        actions = _legal(rng, infos["action_mask"])
        obs, rewards, done, truncated, infos = venv.step(actions)
        for i, env in enumerate(singles):
            o, r, term, trunc, info = env.step(int(actions[i]))
            got[i] = (o, info)
            assert r == rewards[i] and term == done[i] and not trunc and not truncated[i]
            if term:
                assert info["score"] == infos["score"][i]
        steps += 1
    assert steps == venv.tables.kernel.steps_per_episode


@pytest.mark.parametrize(("game", "variant", "options", "opponents"), TABLES, ids=IDS)
def test_the_episode_after_an_autoreset_is_the_rules_engines_of_the_drawn_seed(
        game: str, variant: str | None, options: dict[str, Any], opponents: list[str]) -> None:
    """After ``reset(seed=s)`` and an autoreset, table i plays the i-th seed the generator
    seeded with s draws: nothing of the first episode (a baseline's memory, a stream, a
    running total) carries over the boundary."""
    b = 3
    venv = vector_env(game, num_envs=b, opponents=opponents, variant=variant, **options)
    obs, infos = venv.reset(seed=40)
    rng = np.random.default_rng(1)
    for _ in range(venv.tables.kernel.steps_per_episode):
        obs, _, done, _, infos = venv.step(_legal(rng, infos["action_mask"]))
    assert done.all()
    obs, _, done, _, infos = venv.step(_legal(rng, infos["action_mask"]))  # the autoreset
    seeds = np.random.default_rng(40).integers(SEED_SPACE, size=b)
    singles = [single_agent_env(game, opponents=opponents, variant=variant, views=False,
                                **options) for _ in range(b)]
    got = [env.reset(seed=int(s)) for s, env in zip(seeds, singles, strict=True)]
    done = np.zeros(b, dtype=bool)
    while not done.all():
        for i, (o, info) in enumerate(got):
            assert np.array_equal(obs[i], o) and np.array_equal(infos["action_mask"][i],
                                                                info["action_mask"])
        actions = _legal(rng, infos["action_mask"])
        obs, rewards, done, _, infos = venv.step(actions)
        for i, env in enumerate(singles):
            o, r, term, _, info = env.step(int(actions[i]))
            got[i] = (o, info)
            assert r == rewards[i] and term == done[i]
            if term:
                assert info["score"] == infos["score"][i]


@pytest.mark.parametrize(("game", "variant", "options", "opponents"), TABLES, ids=IDS)
def test_vector_api_and_autoreset(game: str, variant: str | None, options: dict[str, Any],
                                  opponents: list[str]) -> None:
    venv = vector_env(game, num_envs=4, opponents=opponents, variant=variant, **options)
    first = venv.reset(seed=3)
    again = venv.reset(seed=3)
    assert data_equivalence(first, again, exact=True)  # a seeded reset is deterministic
    assert first[0] is not again[0]
    venv.action_space.seed(0)
    total = np.zeros(4)
    for _ in range(venv.tables.kernel.steps_per_episode):
        masks = venv.tables.masks()[:, venv.seat]
        actions = _legal(np.random.default_rng(0), masks)
        obs, rewards, term, trunc, infos = venv.step(actions)
        assert obs.dtype == np.float32 and obs in venv.observation_space
        total += rewards
    assert term.all() and not trunc.any() and infos["_score"].all()
    # next-step autoreset: the following step starts new episodes and pays nothing
    obs, rewards, term, trunc, infos = venv.step(venv.action_space.sample())
    assert not term.any() and not rewards.any()
    assert np.all(obs[:, 0] == 1.0)  # deciding again, in a new episode
    venv.close()


@pytest.mark.parametrize(("game", "variant", "options", "opponents"), TABLES, ids=IDS)
def test_gymnasium_env_checks_that_take_a_vector_env(game: str, variant: str | None,
                                                     options: dict[str, Any],
                                                     opponents: list[str]) -> None:
    """Gymnasium's `env_checker` checks written for any `reset` (its step checks treat
    `terminated` as one bool and sample actions without the mask: single-env only)."""
    venv = vector_env(game, num_envs=3, opponents=opponents, variant=variant, **options)
    for check in (env_checker.check_reset_return_type, env_checker.check_reset_seed_determinism,
                  env_checker.check_reset_options, env_checker.check_reset_return_info_deprecation,
                  env_checker.check_seed_deprecation):
        check(venv)


def test_an_illegal_action_is_refused_by_name() -> None:
    venv = vector_env("ledger", num_envs=2, variant="quickfire")
    venv.reset(seed=1)
    with pytest.raises(IllegalAction, match=r"actions\[0\]"):
        venv.step(np.array([200, 0]))
    with pytest.raises(ConfigError, match="num_envs"):
        vector_env("dilemma", num_envs=0)
    with pytest.raises(ConfigError, match="opponents must be baselines with a batch twin"):
        vector_env("dilemma", num_envs=1, opponents=["promise_keeper"] * 3)


@pytest.mark.parametrize("game", ["dilemma", "ledger", "commons"])
def test_parallel_vector_env(game: str) -> None:
    env = parallel_vector_env(game, num_envs=5)
    obs, infos = env.reset(seed=11)
    assert set(obs) == set(env.possible_agents) == set(infos)
    rng = np.random.default_rng(2)
    steps = 0
    total = np.zeros((5, len(env.possible_agents)))
    while True:
        for agent in env.agents:
            assert obs[agent].shape == (5, *env.single_observation_space(agent).shape)
        actions = {a: _legal(rng, infos[a]["action_mask"]) for a in env.agents}
        obs, rewards, term, trunc, infos = env.step(actions)
        assert not any(t.any() for t in trunc.values())
        total += np.stack([rewards[a] for a in env.possible_agents], axis=1)
        steps += 1
        if all(t.all() for t in term.values()):
            break
    assert steps == env.tables.kernel.steps_per_episode
    scores = np.stack([infos[a]["score"] for a in env.possible_agents], axis=1)
    assert scores.shape == total.shape
    if game == "dilemma":  # points are the score; Ledger scores the median payoff
        assert np.array_equal(scores, total)
    elif game == "ledger":
        assert np.all(scores <= total)
    else:  # Commons' books to three decimals, as the results document rounds them
        assert np.allclose(scores, total, rtol=0.0, atol=5e-4 + 1e-9)
