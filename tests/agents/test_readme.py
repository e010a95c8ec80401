"""The README's bot section works as written on a fresh clone: the repository is cloned into a
temporary folder (with this checkout's uncommitted edits of tracked files laid over it), the
section's commands make their own virtualenv there — not the development one — write a starter
bot, play it strict, run its test (no project pytest options leak into it), then seat the same
bot at a live table with `cogleague account new` and `cogleague table new`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.docs import ROOT, blocks, section
from helpers.serving import on_any_port


def fresh_clone(target: Path) -> Path:
    """`git clone` of this repository, with the working tree's tracked files copied over it."""
    subprocess.run(["git", "clone", "-q", str(ROOT), str(target)], check=True, timeout=120)
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.mark.slow
def test_the_bot_section_works_on_a_fresh_clone(tmp_path: Path) -> None:
    found = blocks(section("agents"), "sh", "python")
    assert [kind for kind, _ in found] == ["sh", "sh"]
    play, live = (text for _, text in found)
    assert play.startswith("python3 -m venv .venv && ") and "pytest" in play.splitlines()[0]
    clone = fresh_clone(tmp_path / "clone")
    assert not (clone / ".venv").exists()
    env = {k: v for k, v in os.environ.items()
           if not k.lower().endswith("_proxy") and k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    done = subprocess.run(["bash", "-c", "set -e\n" + play], cwd=clone, capture_output=True,
                          text=True, timeout=1200, env=env)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert (clone / ".venv" / "bin" / "cogleague").is_file()
    assert (clone / "my_bot.py").is_file() and (clone / "runs" / "my-bot" /
                                                "replay.json").is_file()
    assert "fallbacks:" not in out and "1 passed" in out, out[-3000:]
    log = tmp_path / "serve.log"  # the server picks its port; the commands use the one it names
    script = "set -e\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\n" + on_any_port(live, log)
    served = subprocess.run(["bash", "-c", script], cwd=clone, capture_output=True,
                            text=True, timeout=300, env=env)
    out = served.stdout + served.stderr + log.read_text()
    assert served.returncode == 0, out[-3000:]
    assert "ended (complete)" in out, out[-3000:]
