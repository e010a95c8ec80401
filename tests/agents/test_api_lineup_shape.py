"""A line-up that is not a list of policies (a number — the dilemma's `seats` option shares
the name — or one string) is refused as a `ConfigError` naming `seats`, by `play`,
``play(engine="batch")`` and `play_batch`, never a `TypeError` or a string read letter by
letter; `play_batch`'s `seeds` likewise."""

from __future__ import annotations

from typing import Any

import pytest

import cogleague
from cogleague.core.errors import ConfigError


@pytest.mark.parametrize("seats", [5, "tit_for_tat", b"pavlov"])
def test_a_line_up_that_is_no_list_is_refused_naming_seats(seats: Any) -> None:
    with pytest.raises(ConfigError, match=r"seats must list the policies, one per seat"):
        cogleague.play("dilemma", seats, seed=1)
    with pytest.raises(ConfigError, match=r"seats must list the policies, one per seat"):
        cogleague.play("dilemma", seats, seed=1, engine="batch")
    with pytest.raises(ConfigError, match=r"seats must list the policies, one per seat"):
        cogleague.play_batch("dilemma", seats, seeds=[1])


def test_the_seat_count_keyword_is_refused_naming_seats() -> None:
    """``seats=5`` reads as the dilemma's seat-count option; the line-up sets the count."""
    with pytest.raises(ConfigError, match=r"seats must list the policies.*\(got 5\)"):
        cogleague.play("dilemma", seats=5, seed=1)


@pytest.mark.parametrize("seeds", [5, "17"])
def test_seeds_that_are_no_collection_are_refused_naming_seeds(seeds: Any) -> None:
    with pytest.raises(ConfigError, match=r"seeds must be a collection of integer seeds"):
        cogleague.play_batch("dilemma", ["pavlov"] * 3, seeds=seeds)


def test_a_tuple_or_generator_line_up_still_plays() -> None:
    lineup = ("pavlov", "tit_for_tat", "random")
    want = cogleague.play("dilemma", list(lineup), seed=3, rounds=4).scores
    assert cogleague.play("dilemma", lineup, seed=3, rounds=4).scores == want
    assert cogleague.play("dilemma", iter(lineup), seed=3, rounds=4).scores == want
    run = cogleague.play_batch("dilemma", iter(lineup), seeds=iter([3]), rounds=4)
    assert run.scores[0].tolist() == want
