"""A subject whose decisions fell back is not profiled silently: the profile counts its
fallbacks by cause, and `cogleague profile` says its traits measure the game's fallback (a
bot that raises on every turn otherwise reads "nice: yes, cooperation 1.00")."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.client.bot import Bot, TurnInfo
from cogleague.games.registry import get
from cogleague.profiles.runner import profile


class Raising(Bot):
    """A dilemma subject that raises on every turn (as `MODULE:CLASS`)."""

    def on_turn(self, turn: TurnInfo) -> dict[str, str]:
        raise ValueError("boom")


class Fine(Bot):
    def on_turn(self, turn: TurnInfo) -> dict[str, str]:
        return {"action": "cooperate"}


def test_the_profile_counts_the_subjects_fallbacks() -> None:
    raising = profile(get("dilemma"), f"{__name__}:Raising", episodes=2).to_json()
    assert raising["fallbacks"] == {"error": raising["fallbacks"]["error"]}
    assert raising["fallbacks"]["error"] > 0
    fine = profile(get("dilemma"), f"{__name__}:Fine", episodes=2).to_json()
    assert fine["fallbacks"] == {}


def test_the_command_warns_that_the_traits_measure_the_fallback() -> None:
    cli = CliRunner()
    shown = cli.invoke(app, ["profile", f"{__name__}:Raising", "--game", "dilemma",
                             "--episodes", "2"])
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())
    assert "fell back" in text and "(error" in text and "game's fallback" in text
    doc = json.loads(cli.invoke(app, ["profile", f"{__name__}:Raising", "--game", "dilemma",
                                      "--episodes", "2", "--json"]).output)
    assert doc["fallbacks"]["error"] > 0
