"""A hostile or broken seat's reply never crashes the episode (the product's rule): it is a
parse failure or an illegal move (retried, then the rules' fallback) with a short reason, and
the table plays on to a written, verifiable replay."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import cogleague
from cogleague.games.dilemma.actions import normalize
from helpers.hostile import Raiser, Special, check_outcome, realize, replies

OPPONENTS = ["tit_for_tat", "always_defect"]
REPLIES = replies(["action", "message"], ["cooperate", "defect", " Defect\n", "steal"])


def play_hostile(sent: list[Any]) -> cogleague.Result:
    """One short match: seat 0 is an in-process bot answering with `sent`, in turn."""
    answers = itertools.cycle(sent)
    return cogleague.play("dilemma", [lambda turn: next(answers), *OPPONENTS], seed=3,
                          rounds_total=2)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.data_too_large])
@given(sent=REPLIES.map(lambda r: [r]) | REPLIES.flatmap(lambda r: REPLIES.map(lambda s: [r, s])))
def test_any_reply_leaves_a_finished_written_episode(sent: list[Any]) -> None:
    result = play_hostile([realize(r) for r in sent])
    check_outcome(result, "dilemma")
    again = play_hostile([realize(r) for r in sent])  # fresh objects: same bytes
    assert again.replay_json == result.replay_json


@pytest.mark.parametrize("name", ["deep_list", "huge_int", "list_of_huge_int", "megabyte",
                                  "raiser", "str_array", "plain_object"])
def test_an_unusable_action_is_refused_with_a_short_reason(name: str) -> None:
    """Before: repr() of the action recursed past the limit (RecursionError), refused a
    5,000-digit integer (ValueError), copied a megabyte into the reason, or compared a numpy
    array as a truth value: each crashed the whole table or bloated its results."""
    result = play_hostile([{"action": realize(Special(name))}])
    assert result.outcome.faults[0] == {"illegal": 4}
    check_outcome(result, "dilemma")
    again = play_hostile([{"action": realize(Special(name))}])  # a fresh object, the same bytes
    assert again.replay_json == result.replay_json


def test_a_refusal_quotes_the_value_briefly() -> None:
    from cogleague.core.errors import IllegalAction

    with pytest.raises(IllegalAction) as err:
        normalize({"action": "no " * 100_000}, True)
    assert len(str(err.value)) < 120 and "(got 'no no no" in str(err.value)
    with pytest.raises(IllegalAction) as err:
        normalize({"action": Raiser()}, True)
    assert "Raiser" in str(err.value) and "0x" not in str(err.value)  # no address: replayable
