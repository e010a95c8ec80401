"""The shell commands of the game, league, profile and RL pages run as written, in order
(then bots.md's Python example on the bot its commands wrote), in a scratch folder holding the
repository's `examples/` and `prompts/` (the README, docs/tables.md, docs/models.md,
docs/writing-a-game.md and the league's "Join the league" have tests of their own). A command
that needs a hosted model provider's key is left out by rule (`NEEDS_A_KEY`), and so is the one
named in `NOT_HERE`, with the reason."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.docs import ROOT, blocks, sh_blocks

PAGES = ["bots.md", "commons.md", "dilemma.md", "ledger.md", "league.md", "profiles.md",
         "rl.md"]
SECTION_END = {"league.md": "## Join the league"}
"""Where a page's commands for this test stop (the rest is tested elsewhere)."""
NEEDS_A_KEY = re.compile(r"--model (?!\S*llama)")
"""A hosted model (not a local server's): out of scope for a test with no network."""
NOT_HERE = {
    "python examples/rl/train_dilemma.py": "trains for minutes and rewrites the committed "
    "policy; tests/envs/test_example.py runs a two-generation version of it",
}
BIN = Path(sys.executable).parent


def commands(page: str) -> list[str]:
    """The page's sh-block commands: continuations joined, comments cut, ``a && b`` as two,
    in order."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    text = text.split(SECTION_END[page])[0] if page in SECTION_END else text
    out = []
    for block in sh_blocks(text):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            for part in filter(None, (p.strip() for p in line.split(" && "))):
                if not part.startswith(("pip ", "export ")):
                    out.append(part)
    return out


def runnable(line: str) -> bool:
    return not NEEDS_A_KEY.search(line) and not any(line.startswith(p) for p in NOT_HERE)


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_commands_run_as_written(page: str, tmp_path: Path) -> None:
    lines = [line for line in commands(page) if runnable(line)]
    assert lines, f"{page} shows no command this test can run"
    (tmp_path / "prompts").symlink_to(ROOT / "prompts")
    if page == "rl.md":  # its league writes its store beside the league file: into a copy
        shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns(
            "*.db", "*.db-*", "*.db.lock", "__pycache__", "*.egg-info"))
    else:
        (tmp_path / "examples").symlink_to(ROOT / "examples")
    if page == "bots.md":  # the page's own bot, as its first command writes it
        assert lines[0].startswith(".venv/bin/cogleague bot new dilemma my_bot.py")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env.update({"PATH": f"{BIN}:{env['PATH']}", "COLUMNS": "120"})
    for line in lines:
        argv = shlex.split(line.replace(".venv/bin/", ""))
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                              env=env, check=False)
        assert done.returncode == 0, f"{page}: {line}\n{done.stdout[-2000:]}\n{done.stderr}"
    for script in python_after_commands(page):  # e.g. bots.md's "From Python", on its bot
        (tmp_path / "example.py").write_text(script, encoding="utf-8")
        done = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300, env=env, check=False)
        assert done.returncode == 0, f"{page}:\n{script}\n{done.stderr}"
        assert done.stdout.strip(), script


def python_after_commands(page: str) -> list[str]:
    """The page's Python examples that play from the files its commands wrote (the others
    are run by the page's own test or are fragments)."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    return [body for _, body in blocks(text, "python") if "cogleague.play(" in body
            and page == "bots.md"]


def test_the_rules_leave_out_only_what_they_name() -> None:
    every = [line for page in PAGES for line in commands(page)]
    left_out = [line for line in every if not runnable(line)]
    assert len(every) >= 20 and all(
        NEEDS_A_KEY.search(line) or line.startswith(tuple(NOT_HERE)) for line in left_out)
    assert runnable("cogleague play dilemma --seats llm:p.txt --model llama3.2 --base-url x")
    assert len(python_after_commands("bots.md")) == 1
    assert not runnable("cogleague play ledger --seats llm:p.txt --model gpt-4o-mini")
