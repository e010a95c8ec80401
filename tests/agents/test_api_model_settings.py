"""`cogleague.play`'s model-seat settings are checked whatever the line-up, naming the field:
`provider="zz"` was refused only when a seat was a model seat and silently ignored otherwise
(a typo surfaced only once a model seat was added), and a `transcript` that is no path failed
with a Python `TypeError` from deep inside the model seat."""

from __future__ import annotations

from typing import Any

import pytest

import cogleague
from cogleague.core.errors import ConfigError

BASELINES = ["tit_for_tat", "pavlov", "always_defect"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"provider": "zz"}, r"^provider must be one of openai, anthropic \(got 'zz'\)"),
    ({"provider": 5}, r"^provider must be one of openai, anthropic \(got 5\)"),
    ({"model": 5}, r"^model must be a non-empty string \(got 5\)"),
    ({"model": ""}, r"^model must be a non-empty string \(got ''\)"),
    ({"base_url": 7}, r"^base_url must be a non-empty string \(got 7\)"),
    ({"api_key": b"k"}, r"^api_key must be a non-empty string \(got b'k'\)"),
    ({"transcript": 5}, r"^transcript must be a file path \(got 5\)"),
])
@pytest.mark.parametrize("lineup", [BASELINES, ["llm", "pavlov", "always_defect"]])
def test_model_settings_are_checked_with_or_without_model_seats(
        kwargs: dict[str, Any], message: str, lineup: list[str]) -> None:
    field = next(iter(kwargs))
    with pytest.raises(ConfigError, match=message) as err:
        cogleague.play("dilemma", lineup, seed=1, rounds=1, **kwargs)
    assert err.value.field == field


def test_good_settings_still_play_baselines(tmp_path: Any) -> None:
    result = cogleague.play("dilemma", BASELINES, seed=1, rounds=1, provider="anthropic",
                            model="m", transcript=tmp_path / "t.jsonl")
    assert len(result.scores) == 3
