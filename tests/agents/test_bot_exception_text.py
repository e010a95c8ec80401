"""A bot's exception is stored with its message cut short: a message of megabytes (or one
whose `str` raises, such as an integer past the 4,300-digit limit) never goes whole into the
results, and never crashes the episode."""

from __future__ import annotations

import json
from typing import Any

import cogleague
from cogleague.seats.inprocess import MESSAGE_CHARS


class Loud(Exception):
    pass


def raises(error: BaseException) -> Any:
    def turn(_: Any) -> Any:
        raise error
    return turn


def test_a_huge_exception_message_is_cut() -> None:
    result = cogleague.play("dilemma", [raises(Loud("x" * 1_000_000)), "tit_for_tat", "pavlov"],
                            seed=1, rounds=2)
    row = result.results["faults"]["seats"][0]
    assert row["fallbacks"] == {"error": 4}
    assert all(len(e["error"]) < MESSAGE_CHARS + 1000 for e in row["errors"]), \
        [len(e["error"]) for e in row["errors"]]
    assert row["errors"][0]["error"].startswith("Loud: xxx")
    assert len(json.dumps(result.results)) < 20_000


def test_an_exception_whose_message_cannot_be_made_is_named_by_its_type() -> None:
    result = cogleague.play("dilemma", [raises(Loud(10**5000)), "tit_for_tat", "pavlov"], seed=1,
                            rounds=2)
    row = result.results["faults"]["seats"][0]
    assert row["fallbacks"] == {"error": 4}
    assert row["errors"][0]["error"].startswith("Loud: <")
