"""`cogleague play ledger`: artifacts, the seed-7 aliases, verification, and clean errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogleague.cli import app

from .support import SEED7_ALIASES

COGLEAGUE = Path(sys.executable).with_name("cogleague")
runner = CliRunner()


def test_seed7_plays_writes_artifacts_and_verifies(tmp_path: Path) -> None:
    out = tmp_path / "out"
    played = subprocess.run([str(COGLEAGUE), "play", "ledger", "--seed", "7", "--out", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert "aliases: " + ", ".join(SEED7_ALIASES) in played.stdout
    for alias in SEED7_ALIASES:
        assert alias in played.stdout
    assert "14/14" in played.stdout and "ring pairs flagged" in played.stdout
    rows = [line for line in played.stdout.splitlines() if line.startswith("│")]
    assert [row.split("│")[2].strip() for row in rows][-1] == "Gasket"  # the shark ranks last
    assert rows[-1].split("│")[1].strip() == "8" and rows[0].split("│")[1].strip() == "1"
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["aliases"] == SEED7_ALIASES and results["reason"] == "complete"
    assert sorted(set(results["policyNames"])) == ["grim", "mirror", "opportunist", "saint",
                                                   "shark"]
    replay = json.loads((out / "replay.json").read_text(encoding="utf-8"))
    assert replay["format"] == "ledger.replay.v1" and "frames" in replay
    verified = subprocess.run([str(COGLEAGUE), "replay", "verify", str(out / "replay.json")],
                              capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0 and "verifies" in verified.stdout


def test_a_tampered_replay_fails_verification(tmp_path: Path) -> None:
    out = tmp_path / "t"
    assert runner.invoke(app, ["play", "ledger", "--seed", "3", "--rounds", "4", "--out",
                               str(out)]).exit_code == 0
    doc = json.loads((out / "replay.json").read_text(encoding="utf-8"))
    doc["results"]["scores"][0] = 14.0
    (out / "replay.json").write_text(json.dumps(doc), encoding="utf-8")
    result = runner.invoke(app, ["replay", "verify", str(out / "replay.json")])
    assert result.exit_code == 1 and "$.results.scores[0]" in result.output


def test_options_shape_the_episode(tmp_path: Path) -> None:
    out = tmp_path / "q"
    result = runner.invoke(app, ["play", "ledger", "--variant", "quickfire", "--seed", "9",
                                 "--seats", "saint,saint,shark,shark,Mirror,grim,grim,opportunist",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert (results["rounds"], results["maxRounds"]) == (7, 7)
    assert results["policyNames"][4] == "Mirror"
    out = tmp_path / "r"
    assert runner.invoke(app, ["play", "ledger", "--seed", "9", "--rounds", "10", "--out",
                               str(out)]).exit_code == 0
    assert json.loads((out / "results.json").read_text(encoding="utf-8"))["rounds"] == 10


def test_the_default_output_directory_is_runs_ledger_seed(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["play", "ledger", "--seed", "12", "--rounds", "4"]).exit_code == 0
    assert (tmp_path / "runs" / "ledger-standard-12" / "replay.json").is_file()


def test_certification_runs_its_model_seats_as_mirror_without_a_provider(
        tmp_path: Path) -> None:
    out = tmp_path / "c"
    result = runner.invoke(app, ["play", "ledger", "--variant", "certification", "--out",
                                 str(out)])
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["rounds"] == 6 and results["aliases"] == SEED7_ALIASES
    assert results["fallbacks"] == [6, 0, 0, 6, 0, 6, 0, 0]  # no client: mirror, flagged
    assert "models" in results


@pytest.mark.parametrize(("args", "message"), [
    (["--seats", "mirror,pirate,shark,grim,saint,opportunist,mirror,mirror"],
     "unknown baseline 'pirate'"),
    (["--seats", "mirror,shark,grim,saint,opportunist,mirror,mirror"],
     "--seats must list 8 policies (got 7)"),
    (["--seats", "mirror,,shark"], "--seats must be a comma-separated list"),
    (["--rounds", "3"], "rounds must be an integer in 4..28 (got 3)"),
    (["--rounds", "29"], "rounds must be an integer in 4..28 (got 29)"),
    (["--variant", "blitz"], "variant must be one of standard, quickfire, certification"),
    (["--seed", "-5"], "seed must be an integer in 0..2147483647 (got -5)"),
    (["--variant", "certification", "--seed", "8"], "seed must be 7 in the certification"),
    (["--provider", "pigeon"], "--provider must be openai or anthropic"),
])
def test_bad_arguments_give_one_clear_line_and_exit_2(args: list[str], message: str,
                                                      tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "ledger", *args, "--out", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "x").exists()


def test_a_bad_argument_from_a_real_process_is_one_line_on_stderr() -> None:
    done = subprocess.run([str(COGLEAGUE), "play", "ledger", "--rounds", "3"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: --rounds must be an integer in 4..28 (got 3)"
    assert done.stdout == ""
