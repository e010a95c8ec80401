"""A failed episode of a league that names no variant is listed with the variant it played
(the game's default), as its standings table names it — not as ``dilemma/None``; the report
says which command plays each kind of failure again."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cogleague.cli import app

cli = CliRunner()

BOT = '''
import cogleague


class NoStart(cogleague.Bot):
    game = "dilemma"

    def __init__(self):
        raise RuntimeError("cannot start")
'''

LEAGUE = '''
[league]
name = "failing"
seed = 3
episodes = 8

[[policies]]
name = "nostart"
bot = "nostart.py:NoStart"

[[policies]]
name = "tft"
baseline = "tit_for_tat"

[[policies]]
name = "ad"
baseline = "always_defect"

[[policies]]
name = "pv"
baseline = "pavlov"

[[games]]
name = "dilemma"
seats = 3
overrides = { rounds_total = 2 }
'''


def test_failures_name_the_default_variant_they_played(tmp_path: Path) -> None:
    (tmp_path / "nostart.py").write_text(BOT, encoding="utf-8")
    league = tmp_path / "league.toml"
    league.write_text(LEAGUE, encoding="utf-8")
    ran = cli.invoke(app, ["league", "run", str(league), "--workers", "1"])
    assert ran.exit_code == 0, ran.output  # some episodes failed, the rest rank

    doc = json.loads(cli.invoke(app, ["league", "standings", str(league), "--json"]).output)
    assert {f["variant"] for f in doc["failures"]} == {"standard"}
    text = cli.invoke(app, ["league", "standings", str(league)]).output
    assert "dilemma/standard seed" in text and "/None" not in text

    out = tmp_path / "report"
    assert cli.invoke(app, ["league", "report", str(league), "--out", str(out)]).exit_code == 0
    page = (out / "index.html").read_text()
    assert "dilemma/standard" in page and "/None" not in page
    assert "(infrastructure)" not in page  # a bot that cannot start is not the platform's fault
    assert "--retry-infra" in page
