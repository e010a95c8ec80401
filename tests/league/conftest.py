"""Shared pieces for league tests: a league file over the test-only `skill` game."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

HERE = Path(__file__).parent
TESTS = HERE.parent

SKILL_POLICIES = """
[[policies]]
name = "weak"
author = "tests"
baseline = "s2"

[[policies]]
name = "mid"
author = "tests"
baseline = "s5"

[[policies]]
name = "strong"
author = "tests"
baseline = "s8"

[[policies]]
name = "steady"
author = "tests"
bot = "leaguegames:SteadyBot"
"""


def league_text(name: str = "t", *, episodes: int = 24, seats: int = 3, extra_policies: str = "",
                variants: str = '["standard"]') -> str:
    return f"""
[league]
name = "{name}"
seed = 11
python_path = ["{TESTS}", "{HERE}"]

{SKILL_POLICIES}
{extra_policies}

[[games]]
name = "skill"
module = "leaguegames"
variants = {variants}
episodes = {episodes}
seats = {seats}
"""


@pytest.fixture
def write_league(tmp_path: Path) -> Callable[..., Path]:
    def write(text: str | None = None, filename: str = "league.toml", **kwargs: object) -> Path:
        path = tmp_path / filename
        path.write_text(text if text is not None else league_text(**kwargs), encoding="utf-8")
        return path

    return write
