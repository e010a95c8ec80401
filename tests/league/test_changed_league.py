"""A league file edited between runs: more episodes extend the schedule; other options for
a game the store already played are refused, naming the field, before anything runs (the
episode ids hash no options, so the finished episodes would otherwise count as played with
the new ones and nothing would be played again)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from leaguefiles import league_text, stored
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.league import config as league_config

cli = CliRunner()


def with_rounds(rounds: int, episodes: int = 6) -> str:
    return league_text(episodes=episodes).replace(
        "seats = 3", f"seats = 3\noverrides = {{ rounds = {rounds} }}")


def test_other_options_for_a_played_game_are_refused_and_more_episodes_extend(
        write_league: Callable[..., Path]) -> None:
    path = write_league(with_rounds(3))
    first = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert first.exit_code == 0 and "played 6 episodes" in first.output, first.output
    url = league_config.load(path).store_url
    before = stored(url)

    path.write_text(with_rounds(5), encoding="utf-8")
    changed = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert changed.exit_code == 2, changed.output
    assert "games[0].overrides" in changed.output and "Traceback" not in changed.output
    standings = cli.invoke(app, ["league", "standings", str(path)])
    assert standings.exit_code == 2 and "games[0].overrides" in standings.output
    assert stored(url) == before

    path.write_text(with_rounds(3, episodes=9), encoding="utf-8")  # the same options, longer
    more = cli.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert more.exit_code == 0 and "6 already finished, 3 to play" in more.output, more.output
    assert set(before) < set(stored(url))
