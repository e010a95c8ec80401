"""`profile` refuses bad arguments up front, naming the field and its range: `episodes` that
is no integer, and a first `seed` whose battery would run past the game's seed range (episode
i plays seed + i) — before any episode is played (a model seat would pay for them), and in
terms of the seed the caller gave, not one it never wrote."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.client.bot import Bot, TurnInfo
from cogleague.core.errors import ConfigError
from cogleague.games.registry import get
from cogleague.profiles.runner import profile

PLAYED: list[int] = []


class Counting(Bot):
    """A dilemma subject that records every turn it is asked (as `MODULE:CLASS`)."""

    def on_turn(self, turn: TurnInfo) -> dict[str, str]:
        PLAYED.append(1)
        return {"action": "cooperate"}


@pytest.mark.parametrize("episodes", [2.5, "3", True, None])
def test_episodes_that_are_no_integer_are_refused_naming_episodes(episodes: Any) -> None:
    with pytest.raises(ConfigError, match=r"episodes must be an integer in 1\.\.10000"):
        profile(get("dilemma"), "tit_for_tat", episodes=episodes)


@pytest.mark.parametrize(("game", "subject", "top"), [
    ("dilemma", "tit_for_tat", 2**63 - 1),
    ("ledger", "mirror", 2**31 - 1),
])
def test_a_battery_past_the_games_seed_range_is_refused_naming_the_seed(
        game: str, subject: str, top: int) -> None:
    with pytest.raises(ConfigError, match=rf"seed must be an integer in 0\.\.{top - 2} "
                                          rf"\(got {top - 1}\)"):
        profile(get(game), subject, episodes=3, seed=top - 1)
    assert profile(get(game), subject, episodes=3, seed=top - 2).episodes == 3


def test_a_refused_seed_plays_no_episode() -> None:
    PLAYED.clear()
    with pytest.raises(ConfigError, match="seed"):
        profile(get("dilemma"), f"{__name__}:Counting", episodes=2, seed=2**63 - 1)
    assert PLAYED == []


def test_the_cli_names_the_seed_option() -> None:
    out = CliRunner().invoke(app, ["profile", "mirror", "--game", "ledger", "--episodes", "2",
                                   "--seed", str(2**31 - 1)])
    assert out.exit_code == 2 and "--seed must be an integer in 0..2147483646" in out.output
