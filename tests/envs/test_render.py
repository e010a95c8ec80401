"""Every environment face declares no render modes and `render_mode = None`, so `render()`
computes nothing and returns None (Gymnasium's and PettingZoo's convention for that mode) —
before, during and after an episode — instead of raising: a training loop that calls
``env.render()`` runs on any of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cogleague.envs import aec_env, parallel_env, parallel_vector_env, single_agent_env, vector_env

FACES: dict[str, Callable[[], Any]] = {
    "parallel": lambda: parallel_env("dilemma", rounds_total=1),
    "aec": lambda: aec_env("dilemma", rounds_total=1),
    "single": lambda: single_agent_env("dilemma", rounds_total=1),
    "vector": lambda: vector_env("dilemma", num_envs=2, variant="classic200", rounds_total=1),
    "parallel_vector": lambda: parallel_vector_env("dilemma", num_envs=2, rounds_total=1),
}


@pytest.mark.parametrize("face", list(FACES))
def test_render_with_no_render_mode_returns_none(face: str) -> None:
    env = FACES[face]()
    assert env.render_mode is None
    assert list(env.metadata.get("render_modes", [])) == []
    if face != "aec":  # PettingZoo's order-enforcing AEC wrapper asks for a reset first
        assert env.render() is None
    env.reset(seed=1)
    assert env.render() is None
    env.close()
    assert env.render() is None
