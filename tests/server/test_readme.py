"""The README's server section works as written: its shell blocks, run in order, start a
server, create an account and a table per game, and play them with the example bots."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from server.support import free_port

ROOT = Path(__file__).resolve().parents[2]


def server_section_script() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("<!-- section:server -->")[1].split("<!-- /section:server -->")[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    assert len(blocks) >= 3, "the server section shows its steps as sh blocks"
    return "\n".join(blocks)


def test_the_readme_steps_work_as_written(tmp_path: Path) -> None:
    # Only the port changes (8000 may be taken here); the working directory is a scratch copy
    # of the layout the README assumes (.venv and examples at hand).
    steps = server_section_script().replace("8000", str(free_port()))
    script = "set -e\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\n" + steps
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert out.count("ended (complete)") == 3, out[-3000:]
    assert '"reason":"complete"' in out
    assert (tmp_path / "cogleague-server.db").exists()
