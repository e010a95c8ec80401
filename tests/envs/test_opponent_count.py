"""Opponents for another table size than the variant's: the error says how many the table
needs and, for a game with a seat range, that `seats=` sets the table's size (a researcher
listing four opponents for a five-seat dilemma table otherwise only learns "must list 3")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cogleague.core.errors import ConfigError
from cogleague.envs import single_agent_env, vector_env

MAKERS: list[tuple[Callable[..., Any], dict[str, Any]]] = [
    (single_agent_env, {}), (vector_env, {"num_envs": 2})]


@pytest.mark.parametrize(("make", "extra"), MAKERS)
def test_too_many_opponents_names_the_seats_keyword(make: Callable[..., Any],
                                                    extra: dict[str, Any]) -> None:
    with pytest.raises(ConfigError) as err:
        make("dilemma", opponents=["tit_for_tat"] * 4, **extra)
    text = str(err.value)
    assert "opponents must list 3" in text and "(got 4)" in text
    assert "seats=5" in text and "3..8" in text


@pytest.mark.parametrize(("make", "extra"), MAKERS)
def test_a_fixed_size_game_does_not_offer_seats(make: Callable[..., Any],
                                                extra: dict[str, Any]) -> None:
    with pytest.raises(ConfigError) as err:
        make("commons", opponents=["steward"] * 2, **extra)
    assert "opponents must list 5" in str(err.value)
