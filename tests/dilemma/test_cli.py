"""`cogleague play dilemma`: plays, prints the standings, writes artifacts; bad args exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogleague.cli import app

runner = CliRunner()


def test_the_documented_command_plays_and_writes_results_and_replay(tmp_path: Path) -> None:
    # A child process at 120 columns (the console reads COLUMNS when the CLI starts): wide
    # enough for every name in full.
    done = subprocess.run([sys.executable, "-c", "from cogleague.cli import main; main()",
                           "play", "dilemma", "--seats",
                           "tit_for_tat,always_defect,pavlov,silver_tongue", "--seed", "3",
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "120"}, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "results (complete)" in done.stdout and "20 of 20 rounds" in done.stdout
    for name in ("tit_for_tat", "always_defect", "pavlov", "silver_tongue"):
        assert name in done.stdout
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert [s["policy"] for s in results["seats"]] == ["tit_for_tat", "always_defect", "pavlov",
                                                      "silver_tongue"]
    assert results["seats"][3]["promises_made"] == 60
    verified = runner.invoke(app, ["replay", "verify", str(tmp_path / "replay.json")])
    assert verified.exit_code == 0 and "verifies (dilemma.replay.v1)" in verified.output


def test_at_80_columns_names_are_cut_and_every_rank_and_number_shows(tmp_path: Path) -> None:
    seats = "my_very_long_bot_name_one,always_defect,pavlov,silver_tongue"
    (tmp_path / "my_very_long_bot_name_one.py").write_text(
        "from cogleague.client import Bot\n\n\nclass MyVeryLongBotNameOne(Bot):\n"
        "    def on_turn(self, turn):\n        return {'action': 'cooperate'}\n",
        encoding="utf-8")
    seats = seats.replace("my_very_long_bot_name_one",
                          f"{tmp_path / 'my_very_long_bot_name_one.py'}:MyVeryLongBotNameOne")
    # A child process: the console reads COLUMNS when the CLI starts, as a terminal's would.
    done = subprocess.run([sys.executable, "-c", "from cogleague.cli import main; main()",
                           "play", "dilemma", "--seats", seats, "--seed", "3", "--out",
                           str(tmp_path / "run")], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "80"}, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    table = [line for line in done.stdout.splitlines() if line[:1] in "┏┃┡│└"]
    rows = [line for line in table if line.startswith("│")]
    assert len(rows) == 4 and all(len(line) <= 80 for line in table), done.stdout
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    points = sorted((s["points"] for s in results["seats"]), reverse=True)
    for row, score in zip(rows, points, strict=True):
        cells = [c.strip() for c in row.strip("│").split("│")]
        rank = 1 + sum(p > score for p in points)
        assert cells[0] == str(rank) and cells[3] == f"{score:g}", row
    assert "…" in done.stdout  # the long policy name was cut, not the numbers


def test_options_reach_the_config(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "dilemma", "--seats", "pavlov,random,promise_keeper",
                                 "--rounds", "7", "--seed", "5", "--stake", "100",
                                 "--rake-bps", "1000", "--no-promises", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    replay = json.loads((tmp_path / "replay.json").read_text(encoding="utf-8"))
    assert results["rounds_played"] == 7 and (results["pot"], results["rake"]) == (300, 30)
    assert sum(s["payout"] for s in results["seats"]) == 270
    assert replay["config"]["promises"] is False and replay["config"]["seed"] == 5
    assert "pot 300, rake 30" in result.output


def test_default_lineup_and_classic_variant(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "dilemma", "--variant", "classic200", "--rounds", "5",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert [s["policy"] for s in results["seats"]] == ["tit_for_tat", "grim_trigger", "pavlov",
                                                      "always_defect"]


@pytest.mark.parametrize(("args", "message"), [
    (["--rounds", "0"], "--rounds must be an integer in 1..1000 (got 0)"),
    (["--seats", "pavlov,pavlov"], "--seats must list 3..8 policies (got 2)"),
    (["--seats", "pavlov,saint,pavlov"], "unknown dilemma baseline 'saint'"),
    (["--seats", "pavlov,,pavlov"], "--seats must be a comma-separated list"),
    (["--stake", "5", "--rake-bps", "5000"], "--rake-bps must be an integer in 0..2000"),
    (["--stake", "-1"], "--stake must be an integer in 0..1000000000"),
    (["--variant", "blitz"], "--variant must be one of standard, classic200"),
])
def test_bad_arguments_give_one_line_and_exit_2(tmp_path: Path, args: list[str],
                                                message: str) -> None:
    result = runner.invoke(app, ["play", "dilemma", *args, "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "results.json").exists()
