"""docs/league.md's "Join the league" commands, run as written in a shell (only the port is
changed, to a free one): a server with the example season, an account, a registered bot, its
tables played by `cogleague agent run`, and the board that shows it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from helpers.net import free_port

ROOT = Path(__file__).resolve().parents[2]


def join_commands() -> str:
    text = (ROOT / "docs" / "league.md").read_text(encoding="utf-8")
    section = text.split("## Join the league", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


def test_the_documented_join_commands_run_as_written(tmp_path: Path) -> None:
    script = join_commands()
    assert "cogleague agent run" in script and "--season examples/season.toml" in script
    port = str(free_port())
    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("rl", "threshold"))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-ec", "trap 'kill %1 2>/dev/null' EXIT\n"
                           + script.replace("8000", port)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "my-bot v1  remote  dilemma  cap 2  active  owner me" in done.stdout
    assert "agent my-bot: 10 table(s) played, 0 failed" in done.stdout
    board = json.loads(done.stdout[done.stdout.index('{"league"'):].splitlines()[0])
    rows = {r["agent"]: r for g in board["games"] for r in g["rows"]}
    assert rows["my-bot"]["games"] >= 10 and rows["my-bot"]["owner"] == "me"
