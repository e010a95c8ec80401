"""A bad seed is refused naming the seed and its range, and a refused reset leaves the running
episode as it was (it is not half torn down)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cogleague.core.errors import ConfigError
from cogleague.envs import parallel_env, parallel_vector_env, single_agent_env, vector_env


@pytest.mark.parametrize("seed", [-1, 1.5, "7", 2**64])
def test_a_bad_seed_is_refused_naming_the_seed_and_its_range(seed: Any) -> None:
    env = parallel_env("dilemma", rounds_total=1)
    with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\."):
        env.reset(seed=seed)


def test_a_refused_reset_leaves_the_running_episode_as_it_was() -> None:
    def play(env: Any, refuse: bool) -> list[Any]:
        out: list[Any] = [env.reset(seed=5)[0]]
        while env.agents:
            if refuse and len(out) == 2:
                with pytest.raises(ConfigError, match="seed"):
                    env.reset(seed=-1)
            obs, rewards, *_ = env.step({a: 1 for a in env.agents})
            out.append((obs, rewards))
        out.append(env.replay_document())
        return out

    plain = play(parallel_env("dilemma", rounds_total=2), refuse=False)
    refused = play(parallel_env("dilemma", rounds_total=2), refuse=True)
    assert repr(plain) == repr(refused)


def test_a_refused_reset_leaves_the_single_agent_episode_as_it_was() -> None:
    def play(refuse: bool) -> list[Any]:
        env = single_agent_env("dilemma", rounds_total=2)
        out: list[Any] = [env.reset(seed=5)[0]]
        done = False
        while not done:
            if refuse and len(out) == 2:
                with pytest.raises(ConfigError, match="seed"):
                    env.reset(seed=2**64)  # gymnasium takes it, the game refuses it
            obs, reward, done, _, _ = env.step(1)
            out.append((obs, reward))
        out.append(env.replay_document())
        return out

    assert repr(play(refuse=False)) == repr(play(refuse=True))


@pytest.mark.parametrize("seed", [-1, 1.5, 2**63 - 2])
def test_the_vector_envs_refuse_a_seed_whose_tables_leave_the_games_range(seed: Any) -> None:
    """Table i plays seed s + i, which must be a seed the rules engine plays (0..2**63-1)."""
    pvenv = parallel_vector_env("dilemma", num_envs=3, seats=3)
    with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\.9223372036854775805"):
        pvenv.reset(seed=seed)
    assert parallel_vector_env("dilemma", num_envs=3, seats=3).reset(seed=2**63 - 3)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True, 2**64])
@pytest.mark.parametrize("make", [
    lambda: single_agent_env("dilemma", rounds_total=1),
    lambda: vector_env("dilemma", num_envs=2, variant="classic200", rounds_total=1),
], ids=["single_agent_env", "vector_env"])
def test_the_gymnasium_faces_refuse_a_bad_seed_as_parallel_env_does(make: Any,
                                                                     seed: Any) -> None:
    """A `ConfigError` naming the seed and its range (not Gymnasium's own error, which names
    no range), before Gymnasium reseeds anything."""
    with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\."):
        make().reset(seed=seed)


@pytest.mark.parametrize(("make", "good", "bad"), [
    (lambda: single_agent_env("dilemma", rounds_total=1), 5, 2**64),
    (lambda: single_agent_env("dilemma", rounds_total=1, pool=["pavlov", "random"]), 5, True),
    (lambda: single_agent_env("ledger", variant="certification",
                              pool=["mirror", "shark", "grim"]), 8, 2**31),
    (lambda: parallel_env("dilemma", rounds_total=1), 5, -1),
], ids=["single", "single-pool", "single-fixed-seed", "parallel"])
def test_a_refused_reset_leaves_the_generator_as_it_was(make: Any, good: int, bad: Any) -> None:
    """The next reset without a seed draws what it would have drawn had the refused reset
    never been asked for (the same opponents from a pool, the same episode seed)."""
    def episodes(refuse: bool) -> list[Any]:
        env = make()
        env.reset(seed=good)
        if refuse:
            with pytest.raises(ConfigError, match="seed"):
                env.reset(seed=bad)
        out = []
        for _ in range(2):
            env.reset()
            out.append((env.game.seed, list(env.game.policy_names)))
        return out

    assert episodes(refuse=True) == episodes(refuse=False)


@pytest.mark.parametrize("seed", [np.int64(5), np.uint32(5), np.int32(5)])
@pytest.mark.parametrize("make", [
    lambda: parallel_env("dilemma", rounds_total=1),
    lambda: single_agent_env("dilemma", rounds_total=1),
    lambda: vector_env("dilemma", num_envs=2, variant="classic200", rounds_total=1),
    lambda: parallel_vector_env("dilemma", num_envs=2, seats=3, rounds_total=1),
], ids=["parallel_env", "single_agent_env", "vector_env", "parallel_vector_env"])
def test_a_numpy_integer_seed_plays_the_python_int_seed(make: Any, seed: Any) -> None:
    """A numpy integer is an integer (seeds drawn with numpy, `np.arange` seed lists): it
    plays the same episode as the same Python int, as a numpy integer action plays its index;
    a numpy float or bool is still refused."""
    assert repr(make().reset(seed=seed)) == repr(make().reset(seed=int(seed)))
    for bad in (np.float64(5.0), np.bool_(True)):
        with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\."):
            make().reset(seed=bad)
