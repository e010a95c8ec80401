"""A `store` that is no database URL (`--store notaurl`, `store="notaurl"`) is refused naming
`store`, from the command line and from Python: it was a SQLAlchemy `ArgumentError` — a
traceback from `league run`, `standings` and `report`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from leaguefiles import league_text
from typer.testing import CliRunner

import cogleague
from cogleague.cli import app
from cogleague.core.errors import ConfigError

BAD = ["notaurl", "sqlite:/x.db:::", ""]


@pytest.mark.parametrize("url", BAD)
def test_the_api_refuses_a_store_that_is_no_url(write_league: Callable[..., Path],
                                                url: str) -> None:
    path = write_league(league_text(episodes=2))
    for call in (lambda: cogleague.run_league(path, workers=1, store=url),
                 lambda: cogleague.league_standings(path, store=url)):
        with pytest.raises(ConfigError, match=r"^store must be a SQLAlchemy URL such as "
                                              r"sqlite:///league\.db \(got ") as err:
            call()
        assert err.value.field == "store"


@pytest.mark.parametrize("command", [["run"], ["standings"], ["report", "--out", "r"]])
def test_the_cli_refuses_a_store_that_is_no_url(write_league: Callable[..., Path],
                                                command: list[str]) -> None:
    path = write_league(league_text(episodes=2))
    done = CliRunner().invoke(app, ["league", command[0], str(path), "--store", "notaurl",
                                    *command[1:]])
    assert done.exit_code == 2, done.output
    assert "store must be a SQLAlchemy URL" in done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
