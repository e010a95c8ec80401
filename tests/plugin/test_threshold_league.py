"""The fourth game in a league: a TOML file naming it runs (`cogleague league run`) and ranks
(`cogleague league standings`), with the game's own standings columns; its baselines and the
example SDK bot (in-process) are the policies."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from plugin.support import need_plugin

need_plugin()

from cogleague.cli import app  # noqa: E402

LEAGUE = """
[league]
name = "threshold-test"
seed = 11
episodes = 6

[[policies]]
name = "fair"
baseline = "fair_share"

[[policies]]
name = "rider"
baseline = "free_rider"

[[policies]]
name = "giver"
baseline = { threshold = "altruist" }

[[policies]]
name = "dice"
baseline = "random"

[[policies]]
name = "recip"
baseline = "reciprocator"

[[policies]]
name = "topper"
bot = "BOT"

[[games]]
name = "threshold"
variants = ["standard", "silent"]
seats = 4
overrides = { rounds = 5 }
"""


def test_a_league_of_threshold_tables_runs_and_ranks(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    bot = Path(__file__).resolve().parents[2] / "examples/threshold/topper_bot.py"
    path.write_text(LEAGUE.replace("BOT", f"{bot}:Topper"), encoding="utf-8")
    runner = CliRunner()
    ran = runner.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert ran.exit_code == 0, ran.output
    assert "played 12 episodes" in ran.output and "0 failed" in ran.output
    again = runner.invoke(app, ["league", "run", str(path), "--workers", "1"])
    assert again.exit_code == 0 and "12 already finished" in again.output, again.output

    shown = runner.invoke(app, ["league", "standings", str(path), "--json"])
    assert shown.exit_code == 0, shown.output
    doc = json.loads(shown.output)
    assert doc["episodes"]["ok"] == 12 and doc["episodes"]["failed"] == 0
    tables = {t["variant"]: t for t in doc["tables"] if t["game"] == "threshold"}
    assert set(tables) == {"standard", "silent"}
    standard = tables["standard"]
    assert [c["key"] for c in standard["columns"]] == ["give_rate", "pledge_kept", "met_rate"]
    rows = {r["policy"]: r for r in standard["rows"]}
    assert set(rows) == {"fair", "rider", "giver", "dice", "recip", "topper"}
    assert rows["topper"]["kind"] == "bot" and rows["topper"]["games"] > 0
    assert rows["rider"]["extras"]["give_rate"] == 0.0
    assert rows["giver"]["extras"]["give_rate"] == 1.0
    assert tables["silent"]["rows"][0]["extras"]["pledge_kept"] is None  # no pledges to keep
    # Free riding pays when others carry the threshold: the rider outscores the altruist.
    assert rows["rider"]["mean"] > rows["giver"]["mean"]

    text = runner.invoke(app, ["league", "standings", str(path)], env={"COLUMNS": "200"})
    assert text.exit_code == 0 and "threshold · standard" in text.output, text.output
    assert "pledges kept" in text.output
