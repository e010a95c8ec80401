"""The environments' own keywords (`views`, `policy_names`, `name`, `opponents`, `pool`) are
checked when the environment is made, and a bad one is a `ConfigError` naming it: a truthy
string is not ``views=True``, a string is not a list of names (its characters would be), and
the vector environments, which take neither `views` nor `policy_names`, say so instead of
failing with a Python `TypeError`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cogleague.core.errors import ConfigError
from cogleague.envs import (
    aec_env,
    parallel_env,
    parallel_vector_env,
    single_agent_env,
    vector_env,
)

MAKERS: dict[str, Callable[..., Any]] = {
    "parallel_env": parallel_env, "aec_env": aec_env, "single_agent_env": single_agent_env}


@pytest.mark.parametrize("maker", sorted(MAKERS))
@pytest.mark.parametrize("views", ["no", 0, 1, None, "True"])
def test_views_must_be_a_bool(maker: str, views: Any) -> None:
    with pytest.raises(ConfigError, match=r"^views must be true or false") as err:
        MAKERS[maker]("dilemma", views=views)
    assert err.value.field == "views"


@pytest.mark.parametrize("views", [True, False])
def test_a_bool_views_still_plays(views: bool) -> None:
    env = parallel_env("dilemma", rounds_total=1, views=views)
    _, infos = env.reset(seed=1)
    assert ("view" in infos["seat_0"]) is views


@pytest.mark.parametrize(("names", "why"), [
    ("abc", "a list of policy names"),
    ([1, 2, 3], "a list of policy names"),
    (["a", "", "c"], "a list of policy names"),
    (["a"], "3..8"),
    (["a"] * 9, "3..8"),
])
def test_policy_names_are_checked_naming_them(names: Any, why: str) -> None:
    with pytest.raises(ConfigError, match=r"^policy_names ") as err:
        parallel_env("dilemma", policy_names=names)
    assert err.value.field == "policy_names"
    assert why in str(err.value)


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"opponents": "pavlov,pavlov,pavlov"}, "opponents"),
    ({"pool": "pavlov"}, "pool"),
    ({"pool": {"pavlov", "random"}}, "pool"),  # a set's order changes between processes
    ({"name": 5}, "name"),
    ({"name": ""}, "name"),
])
def test_single_agent_lists_and_name_are_checked(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError, match=rf"^{field} must be ") as err:
        single_agent_env("dilemma", **kwargs)
    assert err.value.field == field


def test_vector_opponents_as_a_string_are_refused_naming_them() -> None:
    with pytest.raises(ConfigError, match=r"^opponents must be a list") as err:
        vector_env("dilemma", num_envs=2, opponents="pavlov,pavlov,pavlov")
    assert err.value.field == "opponents"


@pytest.mark.parametrize("maker", [vector_env, parallel_vector_env])
@pytest.mark.parametrize("num_envs", [0, 10**9, 2.0, True])
def test_num_envs_is_refused_outside_its_range(maker: Callable[..., Any], num_envs: Any) -> None:
    """A mistyped 10**9 is refused before anything is allocated, naming the range."""
    with pytest.raises(ConfigError, match=r"^num_envs must be an integer in 1\.\.1000000 "):
        maker("dilemma", num_envs=num_envs)


@pytest.mark.parametrize("maker", [vector_env, parallel_vector_env])
@pytest.mark.parametrize("key", ["views", "policy_names"])
def test_vector_environments_refuse_what_they_do_not_take(maker: Callable[..., Any],
                                                          key: str) -> None:
    value: Any = False if key == "views" else ["a", "b", "c", "d"]
    with pytest.raises(ConfigError, match=rf"^{key}: ") as err:
        maker("dilemma", num_envs=2, **{key: value})
    assert err.value.field == key


def test_names_may_come_as_a_tuple_or_a_numpy_array() -> None:
    import numpy as np

    for opponents in (("pavlov", "random", "tit_for_tat"),
                      np.array(["pavlov", "random", "tit_for_tat"])):
        env = single_agent_env("dilemma", opponents=opponents, rounds_total=1)
        env.reset(seed=2)
        assert env.spec_.policy_names == ["rl:seat_0", "pavlov", "random", "tit_for_tat"]
