"""A league's ``[profiles]`` seed is checked against each profiled game's range when the file
is read: the battery of E episodes plays seeds seed … seed + E − 1, so a seed the league took
at `league run` must not fail only at `league report`, and then naming `seed`, a field the
file does not have."""

from __future__ import annotations

from pathlib import Path

import pytest

from cogleague.core.errors import ConfigError
from cogleague.league import config

LEAGUE = """
[league]
name = "p"
seed = 1
episodes = 2

[profiles]
episodes = {episodes}
seed = {seed}

[[policies]]
name = "tft"
baseline = {{ dilemma = "tit_for_tat", ledger = "mirror" }}

[[policies]]
name = "grim"
baseline = {{ dilemma = "grim_trigger", ledger = "grim" }}

[[policies]]
name = "defector"
baseline = {{ dilemma = "always_defect", ledger = "shark" }}

[[games]]
name = "{game}"
"""


def write(tmp_path: Path, game: str, seed: int, episodes: int = 10) -> Path:
    path = tmp_path / "league.toml"
    path.write_text(LEAGUE.format(game=game, seed=seed, episodes=episodes), encoding="utf-8")
    return path


@pytest.mark.parametrize(("game", "seed", "top"), [
    ("dilemma", 2**63 - 1, 2**63 - 10),
    ("dilemma", 2**63 - 9, 2**63 - 10),
    ("ledger", 2**31 - 1, 2**31 - 10),
    ("ledger", 2**31, 2**31 - 10),
])
def test_a_seed_past_the_batterys_range_is_refused_naming_profiles_seed(
        tmp_path: Path, game: str, seed: int, top: int) -> None:
    with pytest.raises(ConfigError, match=rf"^profiles\.seed must be an integer in 0\.\.{top} "
                                          rf"\(got {seed}\)") as err:
        config.load(write(tmp_path, game, seed))
    assert err.value.field == "profiles.seed"
    assert game in str(err.value)


@pytest.mark.parametrize(("game", "seed"), [("dilemma", 2**63 - 10), ("ledger", 2**31 - 10)])
def test_the_last_seed_in_range_is_taken(tmp_path: Path, game: str, seed: int) -> None:
    settings = config.load(write(tmp_path, game, seed)).profiles
    assert settings is not None and settings.seed == seed
