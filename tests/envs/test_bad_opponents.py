"""A single-agent environment's `opponents` or `pool` naming a seat that cannot sit at the
table is refused when the environment is made, naming `opponents` or `pool` (the argument
the caller gave), not `seats` at the first `reset`."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.core.errors import ConfigError
from cogleague.envs import single_agent_env, vector_env


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"opponents": ["pavlov", "nope", "random"]}, "opponents"),
    ({"pool": ["pavlov", "nope"]}, "pool"),
    ({"pool": ["policy:/no/such/file.npz"]}, "pool"),
])
def test_a_bad_opponent_is_refused_at_construction_naming_the_argument(
        kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError, match=rf"^{field}: ") as err:
        single_agent_env("dilemma", rounds_total=1, **kwargs)
    assert err.value.field == field


def test_good_opponents_and_pools_still_play() -> None:
    for kwargs in ({"opponents": ["pavlov", "tit_for_tat", "random"]},
                   {"pool": ["pavlov", "promise_keeper"]}):
        env = single_agent_env("dilemma", rounds_total=1, **kwargs)
        env.reset(seed=3)
        done = False
        while not done:
            _, _, done, _, _ = env.step(0)


@pytest.mark.parametrize("make", [
    lambda: vector_env("dilemma", num_envs=2),  # promise_keeper has no batch twin
    lambda: vector_env("ledger", num_envs=2, variant="certification"),  # llm seats
    lambda: single_agent_env("ledger", variant="certification"),  # llm answers asynchronously
], ids=["vector-dilemma", "vector-ledger-certification", "single-ledger-certification"])
def test_a_default_line_up_that_cannot_sit_says_opponents_were_not_given(make: Any) -> None:
    """Without `opponents` an environment seats the variant's line-up; when a seat of it
    cannot sit there, the refusal says the line-up was the default and asks for opponents
    (not a complaint about an argument the caller never gave)."""
    with pytest.raises(ConfigError, match=r"^opponents: not given, and the .* variant's "
                                          r"line-up cannot sit here .*give opponents=") as err:
        make()
    assert err.value.field == "opponents"
