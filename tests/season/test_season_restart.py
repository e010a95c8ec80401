"""A season server restarted with an edited league file: it runs the edited file, so
`GET /leagues/ID/config` (the file an operator reruns offline) serves that text too, and the
log says the file changed. It served the first start's text for ever."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from season.season import season_file


def test_a_restart_with_an_edited_file_serves_the_edited_file(make_server: Any,
                                                               tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'league.db'}"
    path = season_file(tmp_path, tables=100000, final_top=0)
    first = make_server(db, season=str(path))
    url = first.url
    assert "tables = 100000" in httpx.get(f"{url}/leagues/ci-season/config", timeout=10).text
    first.stop()
    season_file(tmp_path, tables=90000, final_top=0)  # the operator extends nothing, shortens
    second = make_server(db, season=str(path))
    served = httpx.get(f"{second.url}/leagues/ci-season/config", timeout=10).text
    assert served == path.read_text(encoding="utf-8")
    assert "the league file changed" in second.log_path.read_text()


def test_a_restart_that_redefines_a_baseline_agent_is_refused(make_server: Any,
                                                               tmp_path: Path) -> None:
    """The file's baseline `tft` now names another baseline: its agent, registered at the
    first start, went on playing tit_for_tat under the name without a word (its ratings would
    mix two policies). The start is refused naming the policy, what it plays and the file's
    new value."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    path = season_file(tmp_path, tables=100000, final_top=0)
    make_server(db, season=str(path)).stop()
    path.write_text(path.read_text().replace('baseline = "tit_for_tat"', 'baseline = "pavlov"'))
    with pytest.raises(RuntimeError) as caught:
        make_server(db, season=str(path))
    assert "policies.tft" in str(caught.value) and "pavlov" in str(caught.value), caught.value


@pytest.mark.parametrize(("old", "new", "field", "says"), [
    ("overrides = {{ rounds_total = 3 }}", "overrides = {{ rounds_total = 5 }}",
     "games[0].overrides", 'must stay {"rounds_total":3} for dilemma default '
                           '(got {"rounds_total":5})'),
    ("name = \"dilemma\"\nseats = 3", "name = \"dilemma\"\nseats = 4",
     "games[0].seats", "must stay 3 for dilemma default (got 4)"),
])
def test_a_restart_that_changes_a_played_games_options_is_refused(
        make_server: Any, tmp_path: Path, old: str, new: str, field: str, says: str) -> None:
    """The season's tables were played with the file's `[[games]]` overrides and seats; a
    restart with other ones went on under the same season (logged as "the league file
    changed"), its standings mixing tables of two kinds without a word. The start is refused
    naming the field, what the season holds and what the file says."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    path = season_file(tmp_path, tables=100000, final_top=0)
    make_server(db, season=str(path)).stop()
    text = path.read_text()
    old, new = old.replace("{{", "{").replace("}}", "}"), new.replace("{{", "{").replace("}}", "}")
    assert old in text
    path.write_text(text.replace(old, new))
    with pytest.raises(RuntimeError) as caught:
        make_server(db, season=str(path))
    assert field in str(caught.value) and says in str(caught.value), caught.value


def test_a_restart_that_adds_a_game_is_not_refused(make_server: Any, tmp_path: Path) -> None:
    """A game or variant the season never played adds tables of its own kind: started."""
    db = f"sqlite:///{tmp_path / 'league.db'}"
    path = season_file(tmp_path, tables=100000, final_top=0)
    make_server(db, season=str(path)).stop()
    path.write_text(path.read_text().replace('variants = ["harvest-open"]',
                                             'variants = ["harvest-open", "harvest-closed"]'))
    second = make_server(db, season=str(path))
    assert "harvest-closed" in httpx.get(f"{second.url}/leagues/ci-season/config",
                                         timeout=10).text


def test_a_season_named_server_is_refused(tmp_path: Path) -> None:
    """The server records every table outside a season under the league name `server`: a
    season of that name was served, and its standings would have ranked every lobby table
    with its own."""
    from cogleague.core.errors import ConfigError
    from cogleague.server.season_runtime import load_season

    path = season_file(tmp_path, tables=10, final_top=0)
    path.write_text(path.read_text().replace('name = "ci-season"', 'name = "server"'))
    with pytest.raises(ConfigError) as caught:
        load_season(str(path))
    assert caught.value.field == "league.name"
    assert "'server'" in str(caught.value) and "outside a season" in str(caught.value)


def test_a_season_file_policy_that_is_not_a_baseline_is_named_at_start(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The season registers the file's baseline policies only: a bot or model policy in it
    (which `league run` plays offline) was left out of the season without a word."""
    import logging

    from cogleague.server.season_runtime import load_season

    path = season_file(tmp_path, tables=10, final_top=0)
    bot = Path(__file__).resolve().parents[2] / "examples" / "dilemma_bot.py"
    path.write_text(path.read_text() + f'\n[[policies]]\nname = "keeper"\nbot = "{bot}:'
                    'PromiseKeeper"\ngames = ["dilemma"]\n')
    with caplog.at_level(logging.WARNING, logger="cogleague.server"):
        load_season(str(path))
    lines = [r.getMessage() for r in caplog.records if "keeper" in r.getMessage()]
    assert len(lines) == 1 and "not a baseline" in lines[0] and "agent" in lines[0], lines


def test_a_bad_season_file_is_refused_before_the_database_is_made(tmp_path: Path) -> None:
    """The file's refusal came after the schema was written: a new database file was left
    behind by a server that never started."""
    from cogleague.core.errors import ConfigError
    from cogleague.server.app import create_app
    from cogleague.server.settings import Settings

    path = season_file(tmp_path, tables=10, final_top=0)
    path.write_text(path.read_text().replace("tables = 10\n", "tables = 10.0\n"))
    db = tmp_path / "never.db"
    with pytest.raises(ConfigError) as caught:
        create_app(Settings(db_url=f"sqlite:///{db}", season=str(path)))
    assert caught.value.field == "season.tables", caught.value
    assert not db.exists()
