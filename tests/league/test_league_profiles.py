"""A game listed in two ``[[games]]`` tables (one per variant, say) is profiled once: the
battery does not depend on the league's variants, so a second pass played every episode
again (a model seat paid twice) and the report showed two identical sections under one
game's name, the second plot overwriting the first. A policy that plays the game in either
table is profiled."""

from __future__ import annotations

from pathlib import Path

from cogleague.league import config
from cogleague.league.profiles import league_profiles

LEAGUE = """
[league]
name = "dup"
seed = 1
episodes = 2

[profiles]
episodes = 1

[[policies]]
name = "tft"
baseline = "tit_for_tat"

[[policies]]
name = "grim"
baseline = "grim_trigger"

[[policies]]
name = "defector"
baseline = "always_defect"

[[policies]]
name = "pavlov"
baseline = "pavlov"
games = ["dilemma"]

[[games]]
name = "dilemma"
variants = ["standard"]
policies = ["tft", "grim", "defector"]

[[games]]
name = "dilemma"
variants = ["classic200"]
overrides = { rounds_total = 5 }
"""


def test_a_game_in_two_tables_is_profiled_once(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    path.write_text(LEAGUE, encoding="utf-8")
    sections = league_profiles(config.load(path), reveal_held_out=True)
    assert [s["game"] for s in sections] == ["dilemma"]
    assert [p["policy"] for p in sections[0]["profiles"]] == ["tft", "grim", "defector",
                                                              "pavlov"]
