"""`profile`'s `opponents` are a list or tuple of seat strings, refused naming `opponents`
otherwise: a string was read letter by letter (``may list 0..3 extra seats (got 6)`` for
"pavlov"), and a set seated its members in string-hash order, which changes between
processes — and with it who moves first in which pairing, so the same seed profiled
differently."""

from __future__ import annotations

from typing import Any

import pytest

from cogleague.core.errors import ConfigError
from cogleague.games.registry import get
from cogleague.profiles import profile


@pytest.mark.parametrize("opponents", ["pavlov", {"pavlov", "random"}, [7], [""]])
def test_opponents_that_are_no_list_of_names_are_refused(opponents: Any) -> None:
    with pytest.raises(ConfigError, match=r"^opponents must be a list of seat strings") as err:
        profile(get("dilemma"), "tit_for_tat", episodes=1, opponents=opponents)
    assert err.value.field == "opponents"


def test_a_tuple_of_opponents_profiles() -> None:
    got = profile(get("dilemma"), "tit_for_tat", episodes=1, opponents=("pavlov", "random"))
    assert got.value("cooperation").n > 0
