"""`cogleague.play`'s on/off keywords take a bool and nothing else: `strict="false"` (a
truthy string) or `strict=0` would otherwise switch strictness silently by Python's
truthiness, the opposite of what was written."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import cogleague


@pytest.mark.parametrize("value", ["false", "yes", 0, 1, None])
@pytest.mark.parametrize("engine", ["rules", "batch"])
def test_strict_that_is_not_a_bool_is_refused_naming_it(value: Any, engine: str) -> None:
    with pytest.raises(cogleague.ConfigError, match=r"^strict must be true or false \(got "):
        cogleague.play("dilemma", ["tit_for_tat", "pavlov", "random"], seed=1, strict=value,
                       engine=engine)


def test_aplay_refuses_it_too() -> None:
    with pytest.raises(cogleague.ConfigError, match="strict must be true or false"):
        asyncio.run(cogleague.aplay("dilemma", seed=1, strict="no"))


@pytest.mark.parametrize("value", ["no", 0])
def test_replay_or_live_that_is_not_a_bool_is_refused_naming_it(value: Any) -> None:
    with pytest.raises(cogleague.ConfigError,
                       match=r"^replay_or_live must be true or false \(got "):
        cogleague.play("dilemma", seed=1, replay_or_live=value)


def test_a_bool_still_plays() -> None:
    assert len(cogleague.play("dilemma", seed=1, strict=False).scores) == 4
    assert len(cogleague.play("dilemma", ["tit_for_tat", "pavlov", "random"], seed=1,
                              strict=True, engine="batch").scores) == 3


def test_save_overwrite_that_is_not_a_bool_is_refused_and_keeps_the_run(tmp_path: Path
                                                                        ) -> None:
    """`save(path, overwrite="no")` replaced the run already there (a truthy string)."""
    first = cogleague.play("dilemma", seed=1)
    first.save(tmp_path)
    before = (tmp_path / "results.json").read_bytes()
    with pytest.raises(cogleague.ConfigError, match=r"^overwrite must be true or false "
                                                    r"\(got 'no'\)$"):
        cogleague.play("dilemma", seed=2).save(tmp_path, overwrite="no")  # type: ignore[arg-type]
    assert (tmp_path / "results.json").read_bytes() == before
