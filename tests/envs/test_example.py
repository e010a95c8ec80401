"""The worked example end to end, shortened to seconds: train, save, evaluate through
``policy:PATH``, plot, and play the file in `cogleague play` and a league."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.seats.policy import load_policy

EXAMPLE = Path(__file__).parents[2] / "examples" / "rl"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_dilemma", EXAMPLE / "train_dilemma.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shortened_training_trains_saves_evaluates_and_plays(tmp_path: Path) -> None:
    policy = tmp_path / "dilemma.npz"
    report = _load().main(["--generations", "2", "--population", "4", "--episodes", "1",
                           "--tables", "6", "--probe", "2", "--out", str(policy),
                           "--curve", str(tmp_path / "curve.png"),
                           "--report", str(tmp_path / "report.json")])
    assert load_policy(policy).header["game"] == "dilemma"
    assert (tmp_path / "curve.png").stat().st_size > 1000
    saved = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert saved["policy"]["n"] == 6 and len(saved["curve"]) == 2
    assert report["tit_for_tat"]["n"] == 6
    for key in ("policy", "tit_for_tat", "policy - tit_for_tat"):
        assert saved[key]["low"] <= saved[key]["mean"] <= saved[key]["high"]

    runner = CliRunner()
    played = runner.invoke(app, ["play", "dilemma", "--seed", "3", "--out", str(tmp_path / "p"),
                                 "--seats", f"policy:{policy},tit_for_tat,pavlov,always_defect"])
    assert played.exit_code == 0, played.output

    league_dir = tmp_path / "league"
    league_dir.mkdir()
    shutil.copy(policy, league_dir / "dilemma.npz")
    text = (EXAMPLE / "league.toml").read_text(encoding="utf-8")
    (league_dir / "league.toml").write_text(text.replace("episodes = 96", "episodes = 8"),
                                            encoding="utf-8")
    ran = runner.invoke(app, ["league", "run", str(league_dir / "league.toml")])
    assert ran.exit_code == 0, ran.output
    standings = runner.invoke(app, ["league", "standings", str(league_dir / "league.toml"),
                                    "--json"])
    assert standings.exit_code == 0, standings.output
    assert "es-policy" in standings.output
