"""`cogleague play` writes results.json beside replay.json; a newcomer who hands
`replay verify` (or `replay open`) the results file was told "format None is not the replay
format of an installed game". It says the file is not a replay, and names the replay beside
it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from seam.support import run_cli


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("run")
    done = run_cli("play", "dilemma", "--seed", "1", "--out", "run", cwd=where)
    assert done.returncode == 0, done.stderr
    return where / "run"


@pytest.mark.parametrize("command", ["verify", "open"])
def test_a_results_file_is_named_as_not_a_replay_with_the_replay_beside_it(
        run_dir: Path, command: str) -> None:
    extra = ["--no-browser"] if command == "open" else []
    done = run_cli("replay", command, str(run_dir / "results.json"), *extra, timeout_s=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip() == (
        f"error: FILE {run_dir / 'results.json'} is not a replay (it has no \"format\"); "
        f"its run's replay is {run_dir / 'replay.json'}"), done.stderr


def test_an_unknown_format_still_lists_the_known_ones(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text(json.dumps({"format": "chess.v1"}), encoding="utf-8")
    done = run_cli("replay", "verify", str(tmp_path / "r.json"))
    assert done.returncode == 2
    assert "format 'chess.v1' is not the replay format of an installed game (known: " \
        in done.stderr, done.stderr
