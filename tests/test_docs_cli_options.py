"""Every `cogleague` command the README and docs/ show names a command that exists and only
options that command's ``--help`` lists: a command copied from a page never stops at "No such
option". The commands are read from the pages' sh blocks and from inline code."""

from __future__ import annotations

import functools
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.docs import ROOT, sh_blocks

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CLI = Path(sys.executable).with_name("cogleague")
GROUPS = {"play", "replay", "bot", "table", "account", "league", "agent", "export"}
"""Top-level commands whose first argument is a subcommand."""
INLINE = re.compile(r"`((?:\.venv/bin/)?cogleague [^`]+)`")


def command_lines(text: str) -> list[str]:
    """The `cogleague …` command lines of `text`: sh blocks (continuations joined, comments
    and pipes cut) and inline code spans."""
    found = []
    for body in sh_blocks(text):
        for line in body.replace("\\\n", " ").splitlines():
            for part in re.split(r"&&|\|(?!\|)|\$\(|;", line.split(" #", 1)[0]):
                part = part.strip().rstrip(")&").strip()
                if re.match(r"(?:\S*/)?cogleague ", part):
                    found.append(part)
    found += [m.group(1) for m in INLINE.finditer(text.replace("\n", " "))]
    return found


def command_of(line: str) -> tuple[list[str], list[str]]:
    """(the command words, the ``--options``) of one command line; a placeholder or a
    ``a|b`` choice in place of a subcommand stays as written (`subcommands` reads it)."""
    words = shlex.split(line.replace("…", ""), comments=False)[1:]  # after the program
    command = words[:1]
    if command and command[0] in GROUPS and len(words) > 1 and not words[1].startswith("-"):
        command = words[:2]
    options = re.findall(r"(?<![\w-])--[a-z][\w-]*", " ".join(words))
    return command, options


@functools.cache
def help_of(command: tuple[str, ...]) -> str:
    done = subprocess.run([str(CLI), *command, "--help"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "200"}, check=False)
    assert done.returncode == 0, f"cogleague {' '.join(command)} --help: {done.stderr}"
    return done.stdout


def subcommands(group: str) -> list[str]:
    """The subcommands `cogleague GROUP --help` lists."""
    listing = help_of((group,)).split("Commands:", 1)[1]
    return re.findall(r"^\s+([a-z][\w-]*)\s", listing, flags=re.M)


def helps_for(command: list[str]) -> list[str]:
    """The help texts a documented command's options must be found in: its own, or for a
    group with a placeholder (``play GAME``, ``agent pause|resume|retire``) each one meant."""
    if command[0] in GROUPS:
        known = subcommands(command[0])
        named = command[1].split("|") if len(command) > 1 else []
        if named and all(n in known for n in named):
            return [help_of((command[0], n)) for n in named]
        assert not named or not re.fullmatch(r"[a-z][\w-]*", command[1]), \
            f"cogleague {command[0]} has no command {command[1]!r}"
        return ["\n".join(help_of((command[0], n)) for n in known)]
    return [help_of(tuple(command))]


def documented() -> list[tuple[str, str]]:
    return [(page.name, line) for page in PAGES
            for line in command_lines(page.read_text(encoding="utf-8"))]


DELIBERATE_ERRORS = {"cogleague play nosuch"}
"""Commands a page shows failing on purpose (performance.md times the argument errors)."""


def wrong_options(lines: list[str]) -> list[str]:
    """Each documented option its command's help does not list, as ``'LINE': --OPTION``."""
    wrong = []
    for line in lines:
        command, options = command_of(line)
        if not command or command[0].startswith("-") or line in DELIBERATE_ERRORS:
            continue
        for text in helps_for(command):
            listed = set(re.findall(r"--[a-z][\w-]*", text))
            wrong += [f"{line!r}: {o}" for o in options if o not in listed]
    return wrong


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_each_documented_option_is_one_the_command_takes(page: Path) -> None:
    wrong = wrong_options(command_lines(page.read_text(encoding="utf-8")))
    assert not wrong, f"{page.name}:\n" + "\n".join(wrong)


def test_the_check_reads_the_pages_commands() -> None:
    assert len(documented()) >= 60
    assert command_of(".venv/bin/cogleague table new dilemma --fill tit_for_tat --no-pacing") \
        == (["table", "new"], ["--fill", "--no-pacing"])
    assert command_lines("run `cogleague play threshold [--seed …] [--refund / --no-refund]`") \
        == ["cogleague play threshold [--seed …] [--refund / --no-refund]"]


def test_the_check_catches_an_option_or_a_command_that_is_not_there() -> None:
    assert wrong_options(["cogleague play dilemma --seed 1 --no-such-option 3",
                          "cogleague play GAME --stake 5", "cogleague serve --port 1"]) == [
        "'cogleague play dilemma --seed 1 --no-such-option 3': --no-such-option"]
    with pytest.raises(AssertionError, match="has no command 'nosuch'"):
        wrong_options(["cogleague play nosuch --seed 1"])


def test_a_shown_agent_registration_names_its_games() -> None:
    """`cogleague agent register NAME` shown as a command to copy (one with a NAME) names
    `--games`, which it requires: copied without it, it stops at "Missing option"."""
    bare = [(page.name, line) for page in PAGES
            for line in command_lines(page.read_text(encoding="utf-8"))
            if command_of(line)[0] == ["agent", "register"] and len(shlex.split(line)) > 3
            and "--games" not in line]
    assert not bare, bare
