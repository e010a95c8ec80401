"""A policy whose every decision fell back (a bot that raises on every turn) is not silent in
the league: the standings document counts each policy's fallbacks by cause, and `league
standings` and the report say which policy fell back, how often and why."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cogleague.cli import app

cli = CliRunner()

BOT = '''
import cogleague


class Crash(cogleague.Bot):
    game = "dilemma"

    def on_turn(self, turn):
        raise ValueError("boom")
'''

LEAGUE = '''
[league]
name = "crashing"
seed = 3
episodes = 6

[[policies]]
name = "crash"
bot = "crash.py:Crash"

[[policies]]
name = "tft"
baseline = "tit_for_tat"

[[policies]]
name = "ad"
baseline = "always_defect"

[[games]]
name = "dilemma"
seats = 3
overrides = { rounds_total = 2 }
'''


def test_a_bot_that_always_falls_back_is_named_in_standings_and_report(tmp_path: Path) -> None:
    (tmp_path / "crash.py").write_text(BOT, encoding="utf-8")
    league = tmp_path / "league.toml"
    league.write_text(LEAGUE, encoding="utf-8")
    ran = cli.invoke(app, ["league", "run", str(league), "--workers", "1"])
    assert ran.exit_code == 0, ran.output
    assert "fell back: crash 24 (error 24)" in " ".join(ran.output.split())

    doc = cli.invoke(app, ["league", "standings", str(league), "--json"])
    assert doc.exit_code == 0, doc.output
    rows = {r["policy"]: r for r in json.loads(doc.output)["tables"][0]["rows"]}
    # 6 episodes, 2 rounds, 2 pairings a seat: 4 decisions an episode, every one fell back
    assert rows["crash"]["fallbacks"] == {"error": 24}
    assert rows["tft"]["fallbacks"] == {} and rows["ad"]["fallbacks"] == {}
    assert rows["crash"]["fallback_error"] == "ValueError: boom"  # the first, its first line
    assert rows["tft"]["fallback_error"] is None

    text = cli.invoke(app, ["league", "standings", str(league)])
    assert text.exit_code == 0, text.output
    assert "fell back: crash 24 (error 24; first: ValueError: boom)" in " ".join(
        text.output.split())

    out = tmp_path / "report"
    report = cli.invoke(app, ["league", "report", str(league), "--out", str(out)])
    assert report.exit_code == 0, report.output
    assert "fell back: crash 24 (error 24; first: ValueError: boom)" in " ".join(
        (out / "index.html").read_text().split())

