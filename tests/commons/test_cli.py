"""`cogleague play commons` end to end: artifacts, the table, and one-line errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cogleague.cli import app
from cogleague.core.verify import verify_replay
from cogleague.games.commons.descriptor import GAME


def verify(doc: Any) -> Any:
    """The one verifier (core/verify.py) with this game's descriptor."""
    return verify_replay(doc, GAME)

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "160"})  # no name cut short
    return result.exit_code, result.output


def test_play_writes_results_and_a_verifiable_replay(tmp_path: Path) -> None:
    code, out = run("play", "commons", "--variant", "mushrooms", "--seats",
                    "steward,free_rider,cleaner,punisher,fair_share,random", "--rounds", "6",
                    "--seed", "11", "--out", str(tmp_path))
    assert code == 0, out
    assert "welfare" in out and "resource" in out and "free_rider" in out
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    replay_text = (tmp_path / "replay.json").read_text(encoding="utf-8")
    replay = json.loads(replay_text)
    assert results["rounds"] == 6 and "welfare" in results and replay["seed"] == 11
    assert replay_text == json.dumps(replay, ensure_ascii=False, sort_keys=True,
                                     separators=(",", ":"))
    verify(replay)
    code, out = run("replay", "verify", str(tmp_path / "replay.json"))
    assert code == 0 and "verifies" in out


def test_certification_without_a_model_falls_back_with_zero_requests(tmp_path: Path) -> None:
    code, out = run("play", "commons", "--variant", "certification", "--out", str(tmp_path))
    assert code == 0, out
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert results["rounds"] == 8
    assert results["fallbacks"] == [8, 0, 0, 0, 0, 0] and results["llm_requests"] == [0] * 6


@pytest.mark.parametrize(("args", "message"), [
    (["--seats", "steward,stewrd,steward"], "unknown policy 'stewrd'"),
    (["--seats", "steward"], "--seats must list 2..12"),
    (["--seats", "steward,,steward"], "--seats must be a comma-separated"),
    (["--variant", "forest"], "--variant must be one of"),
    (["--rounds", "0"], "rounds must be an integer in 1..100"),
    (["--seed", "-1"], "seed must be an integer"),
    (["--seats", ",".join(["steward"] * 13)], "--seats must list 2..12"),
])
def test_bad_arguments_are_one_clear_line_and_exit_2(args: list[str], message: str,
                                                     tmp_path: Path) -> None:
    code, out = run("play", "commons", "--out", str(tmp_path), *args)
    assert code == 2
    assert message in out and "Traceback" not in out
    assert not (tmp_path / "results.json").exists()
