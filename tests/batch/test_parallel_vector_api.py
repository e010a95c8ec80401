"""`parallel_vector_env` offers the PettingZoo parallel API it claims (docs/rl.md) beyond
reset and step: `close` (twice is fine; stepping after it asks for a reset), `render`,
`num_agents`, `max_num_agents` and `unwrapped` — a training loop written for a ParallelEnv
ends with ``env.close()``."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo import ParallelEnv

from cogleague.envs import parallel_vector_env


def test_the_parallel_vector_env_closes_and_counts_its_agents() -> None:
    env = parallel_vector_env("dilemma", num_envs=3, seats=4)
    assert isinstance(env, ParallelEnv)
    env.reset(seed=2)
    assert env.num_agents == env.max_num_agents == 4
    assert env.unwrapped is env and env.render() is None
    env.step({a: np.zeros(3, dtype=np.int64) for a in env.agents})
    env.close()
    env.close()
    with pytest.raises(RuntimeError, match="reset"):
        env.step({a: np.zeros(3, dtype=np.int64) for a in env.possible_agents})
    obs, _ = env.reset(seed=2)  # a closed env can start again, as the rules env can
    assert obs["seat_0"].shape[0] == 3
