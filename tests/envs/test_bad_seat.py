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
