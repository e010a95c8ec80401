"""`cogleague play dilemma`: plays, prints the standings, writes artifacts; bad args exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogleague.cli import _load, app

_load()
runner = CliRunner()


def test_the_documented_command_plays_and_writes_results_and_replay(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "dilemma", "--seats",
                                 "tit_for_tat,always_defect,pavlov,silver_tongue",
                                 "--seed", "3", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "results (complete)" in result.output and "20 of 20 rounds" in result.output
    for name in ("tit_for_tat", "always_defect", "pavlov", "silver_tongue"):
        assert name in result.output
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert [s["policy"] for s in results["seats"]] == ["tit_for_tat", "always_defect", "pavlov",
                                                      "silver_tongue"]
    assert results["seats"][3]["promises_made"] == 60
    verified = runner.invoke(app, ["replay", "verify", str(tmp_path / "replay.json")])
    assert verified.exit_code == 0 and "verifies (dilemma.replay.v1)" in verified.output


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
