"""A command group's own `--help` says what `cogleague --help` says of it: both are read by
someone deciding which command to run, and `bot --help` once offered only `run` while the
group also writes starter bots (`bot new`)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cogleague.cli import COMMANDS

GROUPS = ("play", "replay", "bot", "table", "account", "league", "agent", "export")


@pytest.mark.parametrize("name", GROUPS)
def test_a_groups_help_says_what_the_top_level_listing_says(name: str) -> None:
    from cogleague.cli.root import app

    done = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "400"})
    assert done.exit_code == 0, done.output
    assert COMMANDS[name][1] in done.output, done.output
