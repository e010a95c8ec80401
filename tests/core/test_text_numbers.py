"""A seat's text with an integer literal too long for Python to convert (over 4,300 digits):
before, `json.loads` raised a bare ValueError and the whole reply was unreadable, whichever
field held the number. Now the reply is read; the literal is a `LongInteger`, a non-number the
games refuse where they need a number (naming the field and its range) and ignore elsewhere."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

import cogleague
from cogleague.core.brief import brief
from cogleague.core.text import MAX_INT_DIGITS, LongInteger, first_object, loads_reply

HUGE = "1" * 5000


@pytest.fixture(params=[MAX_INT_DIGITS, 0, 10_000], ids=["default", "unlimited", "raised"])
def int_limit(request: pytest.FixtureRequest) -> Iterator[None]:
    """The process's own conversion limit must not change how a reply reads."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(request.param)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


@pytest.mark.usefixtures("int_limit")
def test_a_reply_with_a_huge_integer_anywhere_is_read() -> None:
    doc = first_object('My move: {"action": "defect", "why": [1, -' + HUGE + "]} ok")
    assert doc is not None and doc["action"] == "defect"
    one, long = doc["why"]
    assert one == 1 and isinstance(long, LongInteger)
    assert (long.negative, long.digits) == (True, 5000)
    assert brief(long) == "<an integer of 5000 digits>"


@pytest.mark.usefixtures("int_limit")
def test_integers_up_to_the_limit_are_read_exactly() -> None:
    at_limit = "9" * MAX_INT_DIGITS
    assert loads_reply('{"n": -' + at_limit + "}") == {"n": -int(at_limit)}
    assert isinstance(loads_reply("[" + at_limit + "9]")[0], LongInteger)
    assert loads_reply("[" + HUGE + ".5]") == [float("inf")]  # a float, however long


def test_a_huge_integer_where_dilemma_needs_none_is_ignored() -> None:
    result = cogleague.play("dilemma", [lambda turn: '{"action": "defect", "n": ' + HUGE + "}",
                                        "always_cooperate", "always_cooperate"],
                            seed=3, rounds_total=2)
    assert result.outcome.faults[0] == {}  # before: {"parse": ...}, the whole reply refused
    scores = result.outcome.results["scores"]
    assert scores[0] > scores[1] == scores[2]  # it defected, as it said


def test_a_huge_integer_in_commons_is_read_as_a_non_number() -> None:
    """Commons never refuses a reply's fields (rules §5): a non-number reads as 0."""
    result = cogleague.play("commons", [lambda turn: '{"harvest": ' + HUGE + ', "note": '
                                        + HUGE + ', "clean": 1}', "steward", "steward"],
                            variant="cleanup", seed=3, rounds=2)
    assert result.outcome.faults[0] == {}  # before: {"parse": ...}, the whole reply refused
