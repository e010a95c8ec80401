"""A variant that fixes its own seed (Ledger's certification plays seed 7) takes any reset
seed in the game's range, as Gymnasium and PettingZoo define `reset(seed=…)`: the episode is
the variant's own, and the seed seeds the environment's generator (a pool's draws, the next
unseeded resets). A seed outside the game's range is still refused, naming its range."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cogleague.core.errors import ConfigError
from cogleague.envs import parallel_env, parallel_vector_env, single_agent_env, vector_env

MIRRORS = ["mirror", "shark", "mirror", "mirror", "grim", "mirror", "shark"]
POOL = ["mirror", "shark", "grim", "saint", "opportunist"]


def test_parallel_env_plays_the_variants_seed_whatever_reset_seed_it_gets() -> None:
    env = parallel_env("ledger", variant="certification", views=False)
    firsts = []
    for seed in (0, 7, 8, 42, 2**31 - 1):
        obs, _ = env.reset(seed=seed)
        assert env.game.seed == 7
        firsts.append(obs["seat_0"].tolist())
    assert all(f == firsts[0] for f in firsts)
    for bad in (-1, 2**31, 1.5, True):
        with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\.2147483647"):
            env.reset(seed=bad)


def test_single_agent_env_seeds_its_pool_with_the_reset_seed() -> None:
    def draws(seed: int) -> list[list[str]]:
        env = single_agent_env("ledger", variant="certification", pool=POOL)
        out = []
        env.reset(seed=seed)
        out.append(list(env.game.policy_names))
        assert env.game.seed == 7
        for _ in range(2):
            env.reset()
            out.append(list(env.game.policy_names))
        return out

    assert draws(3) == draws(3)
    assert len({repr(draws(s)) for s in range(4)}) > 1
    with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\.2147483647"):
        single_agent_env("ledger", variant="certification", opponents=MIRRORS).reset(seed=-1)


@pytest.mark.parametrize("make", [
    lambda b: vector_env("ledger", num_envs=b, variant="certification", opponents=MIRRORS),
    lambda b: parallel_vector_env("ledger", num_envs=b, variant="certification"),
], ids=["vector_env", "parallel_vector_env"])
def test_the_vector_envs_play_the_variants_seed_at_every_table(make: Any) -> None:
    want = parallel_env("ledger", variant="certification", views=False).reset(seed=7)[0]
    for seed in (0, 7, 8, None):
        obs = make(3).reset(seed=seed)[0]
        tables = obs if isinstance(obs, np.ndarray) else obs["seat_0"]
        assert all(t.tolist() == want["seat_0"].tolist() for t in tables)
    with pytest.raises(ConfigError, match=r"seed must be an integer in 0\.\."):
        make(3).reset(seed=-1)
