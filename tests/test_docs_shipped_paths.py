"""Every shipped file a documented `cogleague` command names (a prompt under ``prompts/``, a bot
or policy under ``examples/``) exists: a command copied from the README or a page under docs/
never stops at "prompt file cannot be read"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers.docs import ROOT, sh_blocks

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHIPPED = re.compile(r"(?<![\w/.-])((?:prompts|examples)/[\w./-]*\w)")


def named_paths(page: Path) -> list[str]:
    """The ``prompts/…`` and ``examples/…`` paths on the `cogleague` lines of `page`'s sh
    blocks (``FILE.py:Class`` gives FILE.py)."""
    return [m.group(1) for body in sh_blocks(page.read_text(encoding="utf-8"))
            for line in body.splitlines() if "cogleague " in line
            for m in SHIPPED.finditer(line)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_each_shipped_file_a_command_names_exists(page: Path) -> None:
    missing = [p for p in named_paths(page) if not (ROOT / p).exists()]
    assert not missing, f"{page.name} names files that are not shipped: {missing}"


def test_the_check_reads_the_paths_of_a_command() -> None:
    assert len([p for page in PAGES for p in named_paths(page)]) >= 10
