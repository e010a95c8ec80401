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


KERNEL_LEAGUE = """
[league]
name = "kernels"
seed = 3
episodes = {episodes}

[[policies]]
name = "reciprocator"
baseline = {{ dilemma = "tit_for_tat", ledger = "mirror" }}

[[policies]]
name = "defector"
baseline = {{ dilemma = "always_defect", ledger = "shark" }}

[[policies]]
name = "coin"
baseline = {{ dilemma = "random", ledger = "opportunist" }}

[[policies]]
name = "keeper"
baseline = {{ dilemma = "promise_keeper" }}

[[games]]
name = "dilemma"
variants = ["standard", "classic200"]
seats = 3
overrides = {{ rounds_total = 6 }}

[[games]]
name = "ledger"
variants = ["standard"]
episodes = 6
"""
"""Baselines over two games with kernels: all but ``keeper`` (promise_keeper) have a batch
twin, so the default engine plays most episodes in kernel chunks, the rest by the rules."""


def stored_rows(url: str) -> list[tuple[str, str, str | None, str | None]]:
    """What every backend and engine must store alike: id, status and the documents' JSON
    text, byte for byte."""
    with store.engine_for(url).connect() as conn:
        return sorted(tuple(r) for r in conn.exec_driver_sql(
            "SELECT id, status, results, series FROM league_episodes"))
