"""The README is a front page: at most 150 lines, a quick start of exactly two commands, and
one command per game that plays as written."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.docs import ROOT, sh_blocks

README = (ROOT / "README.md").read_text(encoding="utf-8")


def part(start: str, end: str) -> str:
    return README.split(start, 1)[1].split(end, 1)[0]


def test_the_front_page_is_short() -> None:
    assert len(README.splitlines()) <= 150


def quick_start() -> list[str]:
    (block,) = sh_blocks(part("## Quick start", "<!-- section:join -->"))
    return [line for line in block.strip().splitlines() if line.strip()]


def test_the_quick_start_is_two_commands_that_each_install_then_run() -> None:
    play, tests = quick_start()
    assert play.startswith("python3 -m venv .venv && .venv/bin/pip install -e . && ")
    assert play.split(" && ")[-1].startswith(".venv/bin/cogleague play ")
    assert tests.startswith("python3 -m venv .venv && .venv/bin/pip install -e '.[dev]' ")
    assert tests.split(" && ")[-1] == ".venv/bin/python -m pytest"


def test_ci_runs_the_quick_starts_test_command() -> None:
    """`.ci/run` runs each step of the README's test command (quieter: pip's and pytest's -q),
    so the command a newcomer types is the one CI keeps green."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace(" -q", "")
    steps = quick_start()[1].split(" && ")
    missing = [step for step in steps if step not in ci]
    assert not missing, missing


def test_each_games_command_plays_as_written(tmp_path: Path) -> None:
    blocks = sh_blocks(part("## The games", "<!-- section:agents -->"))
    lines = [line for block in blocks for line in block.strip().splitlines()]
    assert len(lines) == 3 and all(line.startswith(".venv/bin/cogleague play ") for line in lines)
    cli = Path(sys.executable).with_name("cogleague")
    for line in lines:
        argv = [str(cli), *shlex.split(line)[1:]]
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "COLUMNS": "100"}, check=False)
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "results (complete)" in done.stdout, done.stdout[-2000:]


def test_the_lint_and_type_commands_are_the_ones_ci_runs() -> None:
    """The Development section's lint and type commands are `.ci/run`'s own, so what a
    contributor runs is what CI holds them to."""
    development = " ".join(README.split("## Development", 1)[1].split())
    commands = re.findall(r"`(\.venv/bin/(?:ruff|mypy)[^`]*)`", development)
    assert len(commands) == 2, development
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace(" -q", "")
    steps = [step.strip() for step in re.split(r" && |\n", ci)]
    missing = [c for c in commands if c not in steps]
    assert not missing, missing


@pytest.mark.slow
def test_the_quick_starts_test_count_is_about_what_pytest_collects() -> None:
    """The quick start says how many tests its second command runs: within 5% of what
    pytest collects from the whole suite (as that command runs it, from the root)."""
    stated = re.search(r"about ([\d,]+) tests", " ".join(part("## Quick start",
                                                           "```sh").split()))
    assert stated, "the quick start no longer states a test count"
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", "-p", "no:xdist"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, check=False)
    found = re.search(r"(\d+) tests? collected", done.stdout)
    assert found, done.stdout[-2000:] + done.stderr[-2000:]
    claimed, collected = int(stated.group(1).replace(",", "")), int(found.group(1))
    assert abs(claimed - collected) <= collected * 0.05, (claimed, collected)
