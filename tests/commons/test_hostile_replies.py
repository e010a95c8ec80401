"""A hostile or broken seat's reply never crashes the episode (the product's rule): the rules
read it as a legal decision (clamped, or a wrong-shape fault with a short reason) or refuse it
as a parse failure, and the table plays on to a written, verifiable replay."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cogleague
from cogleague.games import registry
from helpers.hostile import Special, check_outcome, realize, replies

KEYS = ["harvest", "clean", "patch", "eat", "eat_color", "plant", "plant_color", "sanction",
        "message", "note", "action"]
REPLIES = replies(KEYS, ["red", " Blue ", "green", "Ostrom", "steward", "1"])


def play_hostile(sent: list[Any], variant: str) -> cogleague.Result:
    """One short episode: seat 0 is an in-process bot answering with `sent`, in turn."""
    answers = itertools.cycle(sent)
    return cogleague.play("commons", [lambda turn: next(answers), "steward", "steward"],
                          variant=variant, seed=3, rounds=2, sanctions_enabled=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.data_too_large])
@given(sent=REPLIES.map(lambda r: [r]) | REPLIES.flatmap(lambda r: REPLIES.map(lambda s: [r, s])),
       variant=st.sampled_from(list(registry.get("commons").variants)))
def test_any_reply_leaves_a_finished_written_episode(sent: list[Any], variant: str) -> None:
    result = play_hostile([realize(r) for r in sent], variant)
    check_outcome(result, "commons")
    again = play_hostile([realize(r) for r in sent], variant)  # fresh objects: same bytes
    assert again.replay_json == result.replay_json


@pytest.mark.parametrize("name", ["deep_tuple", "huge_int", "megabyte", "lone_surrogate",
                                  "raiser", "plain_object"])
def test_an_unknown_key_is_named_briefly(name: str) -> None:
    """Before: the wrong-shape reason printed every unknown key with str(), so a key nested
    past the recursion limit (RecursionError) or a 5,000-digit integer key (ValueError)
    crashed the table, and a megabyte key was copied whole into the results."""
    result = play_hostile([{realize(Special(name)): 1, "harvest": 1}], "cleanup")
    assert result.outcome.faults[0] == {"wrong_shape": 2}
    check_outcome(result, "commons")
    again = play_hostile([{realize(Special(name)): 1, "harvest": 1}], "cleanup")
    assert again.outcome.reasons == result.outcome.reasons  # no address: the same reason


@pytest.mark.parametrize("name", ["str_array", "raiser"])
def test_a_foreign_value_is_read_as_the_rules_default(name: str) -> None:
    """Before: the clamped-flag comparison asked a numpy array (or an object whose __ne__
    raises) for a truth value, which raised out of parse."""
    value = realize(Special(name))
    result = play_hostile([{"eat": 1, "eat_color": value, "sanction": value, "message": value,
                            "note": value}], "mushrooms")
    assert result.outcome.faults[0] == {}
    check_outcome(result, "commons")
