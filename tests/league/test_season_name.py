"""A league run into the server's own database must not take a season's name: the server records
each finished season table in the league tables under the season's id (`payouts.record_league`),
so offline episodes under that name would count in the season's standings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.league import store
from cogleague.server.league_schema import seasons
from cogleague.server.store import Store

cli = CliRunner()


def server_database(path: Path, season: str) -> str:
    """An SQLite file with the server's schema and one running season."""
    url = store.sqlite_url(path)
    db = Store(url)
    try:
        db.create_schema()
        with db.engine.begin() as conn:
            conn.execute(seasons.insert().values(id=season, config_text="", phase="running",
                                                 started_at=0.0, tables_made=0, final_made=0,
                                                 version=0))
    finally:
        db.close()
    return url


def test_a_league_named_as_a_hosted_season_is_refused_naming_the_field(
        write_league: Callable[..., Path], tmp_path: Path) -> None:
    db = tmp_path / "server.db"
    url = server_database(db, "spring")
    result = cli.invoke(app, ["league", "run", str(write_league(name="spring", episodes=3)),
                              "--workers", "1", "--store", store.sqlite_url(db)])
    assert result.exit_code == 2, result.output
    assert "league.name" in result.output and "spring" in result.output
    assert "season" in result.output
    assert store.load_episodes(url) == []
    other = cli.invoke(app, ["league", "run", str(write_league(name="offline", episodes=3)),
                             "--workers", "1", "--store", store.sqlite_url(db)])
    assert other.exit_code == 0, other.output
    assert len(store.load_episodes(url)) == 3


def test_a_store_without_the_server_tables_is_not_read_for_seasons(
        write_league: Callable[..., Path], tmp_path: Path) -> None:
    db = tmp_path / "plain.db"
    result = cli.invoke(app, ["league", "run", str(write_league(name="spring", episodes=3)),
                              "--workers", "1", "--store", store.sqlite_url(db)])
    assert result.exit_code == 0, result.output
    assert len(store.load_episodes(store.sqlite_url(db))) == 3


def test_a_league_named_server_is_refused_in_a_server_database(
        write_league: Callable[..., Path], tmp_path: Path) -> None:
    """The server records every table outside a season under the league ``server``: offline
    episodes under that name would be ranked with them, and they with the league's."""
    db = tmp_path / "server.db"
    url = server_database(db, "spring")
    result = cli.invoke(app, ["league", "run", str(write_league(name="server", episodes=3)),
                              "--workers", "1", "--store", store.sqlite_url(db)])
    assert result.exit_code == 2, result.output
    assert "league.name" in result.output and "'server'" in result.output
    assert store.load_episodes(url) == []
