"""An action that is not an integer index falls back (the single-table environments) or is
refused naming the agent (the vector environments): it is never truncated into another one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cogleague.core.errors import IllegalAction
from cogleague.envs import parallel_env, parallel_vector_env, single_agent_env, vector_env


def _fallbacks(doc: dict[str, Any]) -> int:
    """Decisions the replay's log records as the game's fallback for a failed answer."""
    return sum(1 for op in doc["log"] for d in op.get("decisions", {}).values()
               if d["source"] == "fallback" and d["cause"] == "error")


@pytest.mark.parametrize("action", [0.9, 1.5, np.float32(0.2), "0", True, np.array([0.0])])
def test_a_non_integer_action_falls_back_instead_of_being_truncated(action: Any) -> None:
    env = parallel_env("dilemma", rounds_total=1)
    env.reset(seed=3)
    while env.agents:
        env.step({a: action for a in env.agents})
    falls = _fallbacks(env.replay_document())
    clean = parallel_env("dilemma", rounds_total=1)
    clean.reset(seed=3)
    while clean.agents:
        clean.step({a: np.int64(0) for a in clean.agents})
    assert _fallbacks(clean.replay_document()) == 0
    assert falls > 0, f"{action!r} was played as a legal index without a fallback"


def test_a_non_integer_action_falls_back_in_the_single_agent_env() -> None:
    env = single_agent_env("dilemma", rounds_total=1)
    env.reset(seed=3)
    done = False
    while not done:
        _, _, done, _, _ = env.step(0.7)
    assert _fallbacks(env.replay_document()) > 0


@pytest.mark.parametrize("actions", [np.array([0.9, 1.5, 0.2]), [0.0, 1.0, 0.0],
                                     np.array([True, False, True])])
def test_the_vector_env_refuses_non_integer_actions(actions: Any) -> None:
    venv = vector_env("dilemma", num_envs=3, seats=3, opponents=["random", "pavlov"])
    venv.reset(seed=0)
    with pytest.raises(IllegalAction, match=r"seat_0.*integer"):
        venv.step(actions)


def test_the_vector_envs_refuse_a_wrong_shape_naming_the_agent_and_the_shape() -> None:
    venv = vector_env("dilemma", num_envs=3, seats=3, opponents=["random", "pavlov"])
    venv.reset(seed=0)
    with pytest.raises(IllegalAction, match=r"seat_0.*\(3,\)"):
        venv.step(np.array([0, 1]))
    pvenv = parallel_vector_env("dilemma", num_envs=2, seats=3)
    pvenv.reset(seed=0)
    with pytest.raises(IllegalAction, match=r"seat_1.*integer"):
        pvenv.step({"seat_0": np.array([0, 1]), "seat_1": np.array([0.5, 1.0]),
                    "seat_2": np.array([1, 1])})
