"""The environments drive the one runner: same seed and actions ⇒ byte-identical replays."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from envs.support import TEXTLESS, headless, through_env


@pytest.mark.parametrize("game_name", sorted(TEXTLESS))
@pytest.mark.parametrize("seed", [3, 11])
def test_env_replay_matches_headless_runner(game_name: str, seed: int) -> None:
    expected, actions = headless(game_name, seed)
    got, _ = through_env(game_name, seed, actions)
    assert got == expected


def test_env_replay_matches_cogleague_play_output(tmp_path: Path) -> None:
    variant, options, names = TEXTLESS["dilemma"]
    result = CliRunner().invoke(app, ["play", "dilemma", "--variant", str(variant), "--seed", "7",
                                      "--rounds", str(options["rounds_total"]),
                                      "--seats", ",".join(names), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    _, actions = headless("dilemma", 7)
    got, _ = through_env("dilemma", 7, actions)
    assert got == (tmp_path / "replay.json").read_text(encoding="utf-8")
