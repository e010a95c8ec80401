"""League files over the test-only `skill` game, and what a stored run looks like."""

from __future__ import annotations

from pathlib import Path

from cogleague.league import store

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


def stored(url: str) -> list[tuple[str, str, str | None, str | None]]:
    """What must not depend on how the league ran: id, status, results, series."""
    return sorted((e.id, e.status, None if e.results is None else repr(e.results),
                   None if e.series is None else repr(e.series))
                  for e in store.load_episodes(url))
