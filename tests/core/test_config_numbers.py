"""Option values from numpy (an RL researcher's sweep, a seed array's element) are the numbers
they hold: a numpy integer is an integer option, a numpy float a number option. Booleans
(Python's or numpy's) and fractional values are still refused, never rounded."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cogleague
from cogleague.core.config import check_int, check_number
from cogleague.core.errors import ConfigError


@pytest.mark.parametrize("value", [np.int64(5), np.int32(5), np.uint8(5)])
def test_a_numpy_integer_is_the_int_it_holds(value: Any) -> None:
    got = check_int("rounds_total", value, 1, 10)
    assert got == 5 and type(got) is int


@pytest.mark.parametrize("value", [np.float32(0.5), np.float64(0.5)])
def test_a_numpy_float_is_the_number_it_holds(value: Any) -> None:
    got = check_number("rate", value, 0.0, 1.0)
    assert got == 0.5 and type(got) is float


@pytest.mark.parametrize("value", [np.bool_(True), True, np.float64(5.0), 5.5, "5"])
def test_booleans_and_fractions_are_still_refused(value: Any) -> None:
    with pytest.raises(ConfigError, match=r"rounds_total must be an integer in 1\.\.10"):
        check_int("rounds_total", value, 1, 10)


@pytest.mark.parametrize("value", [np.int64(11), np.int64(0)])
def test_a_numpy_integer_out_of_range_names_the_range(value: Any) -> None:
    with pytest.raises(ConfigError, match=r"rounds_total must be an integer in 1\.\.10"):
        check_int("rounds_total", value, 1, 10)


def test_a_game_option_from_numpy_plays_and_replays_as_the_python_int() -> None:
    from_numpy = cogleague.play("dilemma", seed=3, rounds_total=np.int64(6))
    plain = cogleague.play("dilemma", seed=3, rounds_total=6)
    assert from_numpy.replay_json == plain.replay_json


def test_a_nested_option_from_numpy_is_the_python_int() -> None:
    from cogleague.core.options import validate_options
    from cogleague.games.registry import find

    desc = find("dilemma")
    assert desc is not None
    model = desc.options
    got = validate_options(model, {"payoffs": {"reward": np.int64(3)}})
    assert got["payoffs"]["reward"] == 3 and type(got["payoffs"]["reward"]) is int
