"""The learning seat of a single-agent or vector environment is an integer in range, or refused
naming the seat and the range."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.core.errors import ConfigError
from cogleague.envs import single_agent_env, vector_env


@pytest.mark.parametrize("seat", [True, 1.0, "1", None, -1, 4])
def test_a_bad_learning_seat_is_refused_naming_the_seat_and_its_range(seat: Any) -> None:
    """As `vector_env` refuses it: a bool is not seat 1, a float or string is no seat."""
    with pytest.raises(ConfigError, match=r"seat must be 0\.\.3"):
        single_agent_env("dilemma", seat=seat)
    with pytest.raises(ConfigError, match=r"seat must be 0\.\.2"):
        vector_env("dilemma", num_envs=1, seat=seat, seats=3, opponents=["random", "pavlov"])


def test_numpy_integers_are_integers_for_seat_and_num_envs() -> None:
    """A seat or table count computed with numpy is the int it holds (not refused as "must
    be 0..3 (got np.int64(1))"); a numpy bool is still no seat."""
    import numpy as np

    one = single_agent_env("dilemma", seat=np.int64(1), rounds_total=1)
    assert one.seat == 1 and type(one.seat) is int
    venv = vector_env("dilemma", num_envs=np.int32(2), seat=np.int64(1), seats=3,
                      opponents=["random", "pavlov"], rounds_total=1)
    assert venv.num_envs == 2 and venv.reset(seed=1)[0].shape[0] == 2
    with pytest.raises(ConfigError, match=r"seat must be 0\.\.3"):
        single_agent_env("dilemma", seat=np.bool_(True))
    with pytest.raises(ConfigError,
                       match=r"num_envs must be an integer in 1\.\.1000000 \(got 2\.0\)"):
        vector_env("dilemma", num_envs=np.float64(2.0))
