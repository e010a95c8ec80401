"""`check_game`'s own arguments are checked before any game is played: `seeds=0` was reported
as the game failing ("no variant accepts a mixed line-up on seeds 1..0"), `examples=-1` as a
crash of `random_play`, `examples=True` ran one example, and `checks="replay"` was read
letter by letter. Each is refused naming the argument and what it allows."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.core.errors import ConfigError
from cogleague.testing import check_game
from cogleague.testing.suite import EXAMPLES_MAX, SEEDS_MAX


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"seeds": 0}, f"seeds must be an integer in 1..{SEEDS_MAX} (got 0)"),
    ({"seeds": "3"}, f"seeds must be an integer in 1..{SEEDS_MAX} (got '3')"),
    ({"examples": -1}, f"examples must be an integer in 1..{EXAMPLES_MAX} (got -1)"),
    ({"examples": True}, f"examples must be an integer in 1..{EXAMPLES_MAX} (got True)"),
    ({"checks": "replay"}, "checks must be a list of check names, not one string "
                           "(got 'replay'): checks=['replay']"),
])
def test_a_bad_argument_is_refused_naming_it(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as bad:
        check_game("dilemma", **kwargs)
    assert str(bad.value) == message


def test_good_arguments_still_run() -> None:
    report = check_game("dilemma", checks=["shapes"], seeds=1, examples=1)
    assert list(report.passed) == ["shapes"]
