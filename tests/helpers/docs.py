"""Read a marked section of the README or a page under docs/, and its code blocks: the tests
that run documented commands as written all find them here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def section(name: str, page: str = "README.md") -> str:
    """The text between ``<!-- section:NAME -->`` and ``<!-- /section:NAME -->`` of `page`
    (a path relative to the repository root)."""
    text = (ROOT / page).read_text(encoding="utf-8")
    start, end = f"<!-- section:{name} -->", f"<!-- /section:{name} -->"
    assert start in text and end in text, f"{page} has no section {name!r}"
    return text.split(start)[1].split(end)[0]


def blocks(text: str, *kinds: str) -> list[tuple[str, str]]:
    """The fenced code blocks of `text` whose language is one of `kinds`, as (kind, body)."""
    wanted = "|".join(map(re.escape, kinds or ("sh",)))
    return re.findall(rf"```({wanted})\n(.*?)```", text, flags=re.S)


def sh_blocks(text: str) -> list[str]:
    """The bodies of the ``sh`` blocks of `text`."""
    return [body for _, body in blocks(text, "sh")]
