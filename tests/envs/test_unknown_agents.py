"""A parallel step's actions keyed by a name that is no agent of the table are refused naming
it: `{"seat_9": …}` or `{"player_0": …}` was dropped silently, so a misnamed key in a training
loop went unseen whenever the agent it meant was not deciding (its action is ignored then) —
and actions that are not a dict are refused saying so, not as a missing agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cogleague.envs import parallel_env, parallel_vector_env

MAKERS: list[Callable[[], Any]] = [
    lambda: parallel_env("dilemma", rounds_total=2, views=False),
    lambda: parallel_vector_env("dilemma", num_envs=2, rounds_total=2),
]


@pytest.mark.parametrize("make", MAKERS)
def test_an_unknown_agent_key_is_refused_naming_it(make: Callable[[], Any]) -> None:
    env = make()
    env.reset(seed=1)
    actions: dict[str, Any] = {a: env.action_space(a).sample() * 0 for a in env.possible_agents}
    actions["seat_9"] = actions["seat_0"]
    with pytest.raises(KeyError, match=r"actions: 'seat_9' is not an agent of this table "
                                       r"\(agents: seat_0, seat_1, seat_2, seat_3\)"):
        env.step(actions)
    del actions["seat_9"]
    env.step(actions)  # the refused step changed nothing: the same actions play


@pytest.mark.parametrize("make", MAKERS)
def test_actions_that_are_no_dict_are_refused(make: Callable[[], Any]) -> None:
    env = make()
    env.reset(seed=1)
    with pytest.raises(TypeError, match=r"^actions must be a dict of agent name to action "
                                        r"\(got list\)"):
        env.step([0, 0, 0, 0])
