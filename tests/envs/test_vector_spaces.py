"""The vector environments declare the spaces of the values they return: `observation_space`
and `action_space` are batched over the tables (Gymnasium's `batch_space`), the one-table
spaces are `single_observation_space` / `single_action_space` — Gymnasium's vector
convention, per agent in the PettingZoo face — and every observation `reset` and `step` hand
out (autoreset steps included) passes Gymnasium's own observation check."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.passive_env_checker import check_obs
from gymnasium.vector.utils import batch_space

from cogleague.envs import parallel_vector_env, vector_env

B = 3
GAMES: list[tuple[str, str | None, dict[str, Any]]] = [
    ("dilemma", "classic200", {"rounds_total": 2, "seats": 3}),
    ("ledger", "quickfire", {}),
    ("commons", "cleanup", {"rounds": 2}),
]
IDS = [g for g, _, _ in GAMES]


def _checked(obs: Any, space: spaces.Space[Any], where: str) -> None:
    """Gymnasium's passive checker, its warnings made failures, and plain membership."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_obs(obs, space, where)
    assert obs in space


def _masked(space: spaces.MultiDiscrete, mask: np.ndarray) -> Any:
    """A batched action drawn from the space under each table's action mask."""
    return space.sample(mask=tuple(np.asarray(m, dtype=np.int8) for m in mask))


@pytest.mark.parametrize(("game", "variant", "options"), GAMES, ids=IDS)
def test_parallel_vector_env_spaces_describe_the_batched_values(
        game: str, variant: str | None, options: dict[str, Any]) -> None:
    env = parallel_vector_env(game, num_envs=B, variant=variant, **options)
    for agent in env.possible_agents:
        single_obs, single_act = env.single_observation_space(agent), \
            env.single_action_space(agent)
        assert isinstance(single_act, spaces.Discrete)
        assert env.observation_space(agent) == batch_space(single_obs, B)
        assert env.action_space(agent) == batch_space(single_act, B)
        # PettingZoo: the same space object on every call
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
    obs, infos = env.reset(seed=4)
    for agent in env.possible_agents:
        env.action_space(agent).seed(1)
    episodes = 0
    for _ in range(2 * env.tables.kernel.steps_per_episode + 2):  # through an autoreset
        for agent in env.possible_agents:
            _checked(obs[agent], env.observation_space(agent), "step")
            for row in obs[agent]:
                assert row in env.single_observation_space(agent)
            n = env.single_action_space(agent).n
            assert infos[agent]["action_mask"].shape == (B, n)
        actions = {a: _masked(env.action_space(a), infos[a]["action_mask"])
                   for a in env.agents}
        assert all(actions[a] in env.action_space(a) for a in actions)
        obs, _, term, _, infos = env.step(actions)
        episodes += int(all(t.all() for t in term.values()))
    assert episodes >= 1


@pytest.mark.parametrize(("game", "variant", "options"), GAMES, ids=IDS)
def test_vector_env_spaces_describe_the_batched_values(
        game: str, variant: str | None, options: dict[str, Any]) -> None:
    env = vector_env(game, num_envs=B, variant=variant, **options)
    assert env.observation_space == batch_space(env.single_observation_space, B)
    assert env.action_space == batch_space(env.single_action_space, B)
    obs, infos = env.reset(seed=4)
    env.action_space.seed(1)
    for _ in range(2 * env.tables.kernel.steps_per_episode + 2):
        _checked(obs, env.observation_space, "step")
        action = _masked(env.action_space, infos["action_mask"])
        assert action in env.action_space
        obs, _, _, _, infos = env.step(action)
