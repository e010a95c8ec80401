"""`cogleague replay open FILE`: a real process serving the Theater on loopback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from .replays import write_replay

STARTUP_TIMEOUT_S = 30


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from cogleague.cli import main; main()", *args]


def test_replay_open_serves_the_theater_and_the_file(tmp_path: Path) -> None:
    path, doc = write_replay("dilemma", tmp_path / "replay.json")
    proc = subprocess.Popen(_cli("replay", "open", str(path), "--no-browser"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/theater\?file=1", line)
        assert match, f"no URL in {line!r}"
        url = match.group(0)
        base = url.split("/theater")[0]
        with httpx.Client(timeout=STARTUP_TIMEOUT_S) as http:
            page = http.get(url)
            assert page.status_code == 200 and "theater.js" in page.text
            served = http.get(f"{base}/api/replay-file")
            assert json.loads(served.content) == doc
            assert http.get(f"{base}/static/js/games/dilemma.js").status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.mark.parametrize(("setup", "args", "message"), [
    (None, [], "does not exist"),
    ("not json", [], "is not a JSON replay"),
    ('{"format": "chess/1"}', [], "not a known replay format"),
    ('{"format": "dilemma.replay.v1"}', ["--host", "0.0.0.0"], "loopback"),
])
def test_replay_open_rejects_bad_input_in_one_line(tmp_path: Path, setup: str | None,
                                                    args: list[str], message: str) -> None:
    path = tmp_path / "replay.json"
    if setup is not None:
        path.write_text(setup)
    res = subprocess.run(_cli("replay", "open", str(path), "--no-browser", *args),
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2
    assert message in res.stderr
    assert "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) <= 2  # one line (rich may wrap a long path)


def test_replay_open_takes_a_run_folder_as_replay_verify_does(tmp_path: Path) -> None:
    write_replay("dilemma", tmp_path / "run" / "replay.json")
    proc = subprocess.Popen(_cli("replay", "open", str(tmp_path / "run"), "--no-browser"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert re.search(r"http://127\.0\.0\.1:\d+/theater\?file=1", line), (
            line, proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_replay_open_says_a_folder_without_a_replay_is_one(tmp_path: Path) -> None:
    res = subprocess.run(_cli("replay", "open", str(tmp_path), "--no-browser"),
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2, res.stderr
    assert "is a folder without a replay.json" in res.stderr, res.stderr
