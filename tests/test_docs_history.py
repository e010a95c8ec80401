"""The README and docs/ describe the system as it is: no issue numbers, commit hashes, dated
measurements or "this pass"-style history of the work (that belongs in commit messages)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
HISTORY = {
    "an issue number": re.compile(r"\b(?:issue|PR|pull request)\s*#?\d+", re.I),
    "a commit hash": re.compile(r"(?<![\w/.-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}"
                                r"(?![\w/.-])"),
    "work in progress": re.compile(r"\bthis (?:pass|branch|change|round of work)\b", re.I),
    "a dated measurement": re.compile(r"\b20\d\d-\d\d-\d\d\b"),
    "a before/after of older code": re.compile(r"\b(?:the issue's|this issue|before this "
                                               r"round|earlier measurements)", re.I),
}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_the_page_holds_no_history_of_the_work(page: Path) -> None:
    found = [f"{page.name}:{n}: {what}: {m.group(0)!r}"
             for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1)
             for what, pattern in HISTORY.items() for m in pattern.finditer(line)]
    assert not found, "\n".join(found)


def test_the_check_catches_each_kind_of_history() -> None:
    samples = ["as issue 17 measured", "at `1e8f32f`", "this pass cut it",
               "measured 2026-12-02", "the issue's machine"]
    for sample, pattern in zip(samples, HISTORY.values(), strict=True):
        assert pattern.search(sample), sample
