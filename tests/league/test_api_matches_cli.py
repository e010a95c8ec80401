"""`cogleague.run_league` and `cogleague.league_standings` do what `league run` and `league
standings --json` do (docs/api.md): the same refusals, `--retry-infra`, and the same
document — held-out names revealed once the season is over, as the CLI shows them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from leaguefiles import HERE, TESTS, league_text
from typer.testing import CliRunner

import cogleague
from cogleague.cli import app
from cogleague.core.errors import ConfigError

cli = CliRunner()


def test_workers_zero_is_refused_not_all_cores(write_league: Callable[..., Path]) -> None:
    path = write_league(league_text(episodes=2))
    with pytest.raises(ConfigError) as err:
        cogleague.run_league(path, workers=0)
    assert str(err.value).startswith("workers must be an integer in 1..")


def test_run_league_retries_infra_errors_as_the_cli_does(
        write_league: Callable[..., Path]) -> None:
    policies = "".join(f'[[policies]]\nname = "killer{i}"\nbot = "leaguegames:KillerBot"\n\n'
                       for i in range(3))
    path = write_league(f'[league]\nname = "k"\nseed = 1\npython_path = ["{TESTS}", "{HERE}"]'
                        f'\n\n{policies}[[games]]\nname = "skill"\nmodule = "leaguegames"\n'
                        'variants = ["standard"]\nepisodes = 2\nseats = 3\n')
    first = cogleague.run_league(path, workers=2)
    assert first.infra == 2
    assert cogleague.run_league(path, workers=2).played == 0  # infra_error waits for a retry
    again = cogleague.run_league(path, workers=2, retry_infra=True)
    assert again.played == 2 and again.infra == 2


HELD = league_text(episodes=4).replace('baseline = "s2"', 'baseline = "s2"\nheld_out = true')


def test_standings_are_the_clis_document(write_league: Callable[..., Path]) -> None:
    path = write_league(HELD)
    cogleague.run_league(path, workers=1)
    printed = cli.invoke(app, ["league", "standings", str(path), "--json", "--resamples", "200"])
    assert printed.exit_code == 0, printed.output
    shown = json.loads(printed.output)
    doc = cogleague.league_standings(path, resamples=200)
    assert shown["held_out"]["revealed"] is True  # every episode played: the season is over
    assert doc["held_out"] == shown["held_out"]
    assert json.dumps(doc, sort_keys=True) == json.dumps(shown, sort_keys=True)
