"""A season server restarted with an edited league file: it runs the edited file, so
`GET /leagues/ID/config` (the file an operator reruns offline) serves that text too, and the
log says the file changed. It served the first start's text for ever."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

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
