"""`cogleague bot new GAME PATH` writes a bot and a test that are valid Python whatever the
file is called (a hyphen or a space in the name included), and the test plays the bot (the
real CLI in a child process, then pytest on what it wrote)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from seam.support import child_env, run_cli


@pytest.mark.parametrize("name", ["my-bot", "my bot", "1bot"])
def test_bot_new_writes_python_for_any_file_name(name: str, tmp_path: Path) -> None:
    done = run_cli("bot", "new", "dilemma", f"{name}.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for path in (tmp_path / f"{name}.py", tmp_path / f"test_{name}.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")


def test_the_test_bot_new_wrote_for_a_hyphenated_name_passes(tmp_path: Path) -> None:
    assert run_cli("bot", "new", "dilemma", "my-bot.py", cwd=tmp_path).returncode == 0
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "test_my-bot.py"], capture_output=True, text=True, cwd=tmp_path,
                         env=child_env(), timeout=180, check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 passed" in ran.stdout


@pytest.mark.parametrize("game", ["dilemma", "ledger", "commons"])
def test_the_next_commands_bot_new_prints_work_when_copied(game: str, tmp_path: Path) -> None:
    """Each `next:` line is a whole command (no `…` to fill in, not wrapped at the terminal's
    width): run as printed, the play finishes with the bot seated, the test passes."""
    done = run_cli("bot", "new", game, "my_bot.py", cwd=tmp_path, columns=60)
    assert done.returncode == 0, done.stderr
    nexts = [line.removeprefix("next: ") for line in done.stdout.splitlines()
             if line.startswith("next: ")]
    assert len(nexts) == 2 and nexts[0].startswith(f"cogleague play {game} "), done.stdout
    play = [*shlex.split(nexts[0])[1:], "--out", "run"]
    ran = run_cli(*play, cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "my_bot.py:MyBot" in (tmp_path / "run" / "results.json").read_text(encoding="utf-8")
    test = shlex.split(nexts[1])
    assert test[:3] == ["python", "-m", "pytest"], nexts[1]
    tested = subprocess.run([sys.executable, *test[1:], "-q", "-p", "no:cacheprovider"],
                            capture_output=True, text=True, cwd=tmp_path, env=child_env(),
                            timeout=180, check=False)
    assert tested.returncode == 0 and "1 passed" in tested.stdout, tested.stdout


@pytest.mark.parametrize("game", ["dilemma", "ledger", "commons"])
def test_the_starters_own_try_it_line_plays(game: str, tmp_path: Path) -> None:
    """The starter's docstring opens with a `Try it:` command; it plays as written."""
    assert run_cli("bot", "new", game, "my_bot.py", cwd=tmp_path).returncode == 0
    source = (tmp_path / "my_bot.py").read_text(encoding="utf-8")
    line = next(x for x in source.splitlines() if x.startswith("Try it:"))
    argv = shlex.split(line.removeprefix("Try it:"))
    assert argv[:3] == ["cogleague", "play", game], line
    ran = run_cli(*argv[1:], "--strict", "--out", "run", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
