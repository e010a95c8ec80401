"""Held-out names stay hidden until the season ends, also when their episodes failed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from cogleague.cli import app

cli = CliRunner()

SECRET_BROKEN = """
[[policies]]
name = "secret-broken"
author = "tests"
bot = "leaguegames:BrokenBot"
held_out = true
"""


def test_a_held_out_policy_whose_episodes_all_failed_is_not_named(
        write_league: Callable[..., Path]) -> None:
    path = write_league(episodes=6, extra_policies=SECRET_BROKEN)
    text = path.read_text().replace("seats = 3", "seats = 3\nevaluation_episodes = 4")
    path.write_text(text)
    run = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert run.exit_code == 0, run.output
    doc = json.loads(cli.invoke(app, ["league", "standings", str(path), "--json"]).output)
    assert doc["episodes"]["failed"] == 4  # every evaluation episode: the season goes on
    assert doc["held_out"] == {"revealed": False, "policies": ["held-out #1"]}
    assert "secret" not in json.dumps(doc)
    table = cli.invoke(app, ["league", "standings", str(path)])
    assert table.exit_code == 0, table.output
    assert "secret" not in table.output and "held-out #1" in table.output
