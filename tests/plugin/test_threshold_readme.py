"""The "Add a game" commands of docs/writing-a-game.md work as written (after the install line,
which `.ci/run` has already run): the game is listed, plays and verifies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers.docs import ROOT, section, sh_blocks
from plugin.support import need_plugin

need_plugin()



def test_the_add_a_game_commands_work_as_written(tmp_path: Path) -> None:
    (block,) = sh_blocks(section("plugin", "docs/writing-a-game.md"))
    lines = [line for line in block.splitlines() if "pip install" not in line]
    assert len(lines) == 3, block
    bindir = f"{Path(sys.executable).parent}/"
    script = "set -e\n" + "\n".join(lines).replace(".venv/bin/", bindir)
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={"PATH": "/usr/bin:/bin", "COLUMNS": "200", **{
                              k: v for k, v in os.environ.items() if k == "PYTHONPATH"}})
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "cogleague-threshold" in out and "Threshold public goods results (complete)" in out
    assert "runs/threshold/replay.json verifies (threshold.replay.v1)" in out



def test_the_message_the_page_quotes_is_the_one_the_game_gives() -> None:
    """§3 quotes the message a bad option gets; `cogleague.play` gives exactly that text."""
    import re

    import pytest

    import cogleague

    text = " ".join((ROOT / "docs" / "writing-a-game.md").read_text(encoding="utf-8").split())
    quoted = re.search(r"message format: `([^`]+)`", text)
    assert quoted, "§3 no longer quotes the message"
    with pytest.raises(cogleague.ConfigError) as bad:
        cogleague.play("threshold", seed=1, threshold=801)
    assert str(bad.value) == quoted.group(1)
