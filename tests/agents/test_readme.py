"""The README's agent-author section works as written: a starter bot, played strict, its own
test, then the same bot on a live table through `cogleague bot run`."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from helpers.net import free_port

ROOT = Path(__file__).resolve().parents[2]


def section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("<!-- section:agents -->")[1].split("<!-- /section:agents -->")[0]


def test_the_agent_section_works_as_written(tmp_path: Path) -> None:
    blocks = re.findall(r"```(sh|python)\n(.*?)```", section(), flags=re.S)
    assert [kind for kind, _ in blocks] == ["sh", "sh", "python", "sh"]
    install, play, api, live = (text for _, text in blocks)
    assert "pip install" in install  # the quick start's install; the test reuses this .venv
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    done = subprocess.run(["bash", "-c", "set -e\n" + play], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env=env)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert (tmp_path / "my_bot.py").is_file() and (tmp_path / "runs" / "my-bot" /
                                                   "replay.json").is_file()
    assert "fallbacks:" not in out and "1 passed" in out
    (tmp_path / "api.py").write_text(api, encoding="utf-8")
    ran = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "api.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, env=env)
    assert ran.returncode == 0 and ran.stdout.strip().endswith("None"), ran.stderr
    script = ("set -e\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\n"
              + live.replace("8000", str(free_port())))
    served = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, env=env)
    out = served.stdout + served.stderr
    assert served.returncode == 0, out[-3000:]
    assert "ended (complete)" in out, out[-3000:]
