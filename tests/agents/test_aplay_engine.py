"""`aplay` takes the same arguments as `play` (docs/api.md), `engine` included: ``"rules"``
plays as `play` does, ``"batch"`` returns the kernel's episode, anything else is refused
naming `engine` — never read as a game option."""

from __future__ import annotations

import asyncio

import pytest

import cogleague
from cogleague.core.errors import ConfigError

LINEUP = ["pavlov", "tit_for_tat", "random"]


def test_aplay_takes_the_engine_as_play_does() -> None:
    async def both() -> tuple[list[float], list[float]]:
        rules = await cogleague.aplay("dilemma", LINEUP, seed=4, rounds=5, engine="rules")
        batch = await cogleague.aplay("dilemma", LINEUP, seed=4, rounds=5, engine="batch")
        return rules.scores, batch.scores

    rules, batch = asyncio.run(both())
    want = cogleague.play("dilemma", LINEUP, seed=4, rounds=5)
    assert rules == want.scores
    assert batch == cogleague.play("dilemma", LINEUP, seed=4, rounds=5, engine="batch").scores
    assert batch == want.scores


def test_aplay_refuses_an_unknown_engine_naming_engine() -> None:
    with pytest.raises(ConfigError, match=r"engine must be one of rules, batch \(got 'nope'\)"):
        asyncio.run(cogleague.aplay("dilemma", LINEUP, seed=4, engine="nope"))
