"""`reset(options=…)` is never silently ignored. No environment applies a reset option (a
table's options are the constructor's): None or an empty dict — what Gymnasium's checker
passes — is a plain reset; each key warns (`ResetOptionWarning`) naming it and the allowed
keys (none), and the reset goes on without it, since PettingZoo's own API checkers reset with
a made-up option and expect that; options that are not a dict are refused, before anything
changes."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

from cogleague.core.errors import ConfigError
from cogleague.envs import aec_env, parallel_env, parallel_vector_env, single_agent_env, vector_env
from cogleague.envs.table import ResetOptionWarning

FACES: dict[str, Callable[[], Any]] = {
    "parallel": lambda: parallel_env("dilemma", rounds_total=2),
    "aec": lambda: aec_env("dilemma", rounds_total=2),
    "single": lambda: single_agent_env("dilemma", rounds_total=2),
    "vector": lambda: vector_env("dilemma", num_envs=2, variant="classic200", rounds_total=2),
    "parallel_vector": lambda: parallel_vector_env("dilemma", num_envs=2, rounds_total=2),
}


@pytest.mark.parametrize("face", list(FACES))
@pytest.mark.parametrize("options", [{"rounds_total": 1}, {"seed": 3}, {"": None}])
def test_an_unknown_reset_option_warns_naming_it_and_is_not_applied(
        face: str, options: dict[str, Any]) -> None:
    key = next(iter(options))
    with pytest.warns(ResetOptionWarning, match=rf"options: {key!r} is not a reset option and "
                                                r"is not applied \(allowed: none; .*constructor"):
        warned = FACES[face]().reset(seed=1, options=options)
    assert repr(warned) == repr(FACES[face]().reset(seed=1))


@pytest.mark.parametrize("face", list(FACES))
def test_an_unknown_reset_option_can_be_made_an_error(face: str) -> None:
    env = FACES[face]()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResetOptionWarning)
        with pytest.raises(ResetOptionWarning, match="'rounds_total'"):
            env.reset(seed=1, options={"rounds_total": 1})


@pytest.mark.parametrize("face", list(FACES))
@pytest.mark.parametrize("options", ["rounds_total", ["seed"], 3])
def test_reset_options_that_are_not_a_dict_are_refused(face: str, options: Any) -> None:
    with pytest.raises(ConfigError, match=r"options must be a dict or None"):
        FACES[face]().reset(seed=1, options=options)


@pytest.mark.parametrize("face", list(FACES))
def test_none_and_empty_options_reset_as_no_options(face: str) -> None:
    plain = repr(FACES[face]().reset(seed=3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(FACES[face]().reset(seed=3, options=None)) == plain
        assert repr(FACES[face]().reset(seed=3, options={})) == plain


def test_refused_reset_options_leave_the_episode_running() -> None:
    def play(refuse: bool) -> list[Any]:
        env = parallel_env("dilemma", rounds_total=2)
        out: list[Any] = [env.reset(seed=5)[0]]
        while env.agents:
            if refuse and len(out) == 2:
                with pytest.raises(ConfigError, match="options must be a dict"):
                    env.reset(options=[("rounds_total", 9)])
            obs, rewards, *_ = env.step({a: 1 for a in env.agents})
            out.append((obs, rewards))
        out.append(env.replay_document())
        return out

    assert repr(play(refuse=False)) == repr(play(refuse=True))
