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
