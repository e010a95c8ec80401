"""An environment someone drops is freed: nothing module-wide keeps it (and its game) alive."""

from __future__ import annotations

import gc
import weakref

from cogleague.envs import aec_env, parallel_env


def test_a_dropped_parallel_env_is_garbage_collected() -> None:
    env = parallel_env("dilemma", rounds_total=1)
    env.reset(seed=1)
    for agent in env.possible_agents:  # what every training loop and API test asks
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
    gone = weakref.ref(env)
    env.close()
    del env
    gc.collect()
    assert gone() is None, "a closed and dropped parallel_env is still referenced"


def test_a_dropped_aec_env_is_garbage_collected() -> None:
    env = aec_env("dilemma", rounds_total=1)
    env.reset(seed=1)
    for agent in env.possible_agents:
        env.observation_space(agent)
        env.action_space(agent)
    inner = weakref.ref(env.unwrapped)
    env.close()
    del env
    gc.collect()
    assert inner() is None, "a closed and dropped aec_env's parallel env is still referenced"
