"""The Observatory labels each agent version by its kind in words: every kind a league's
policy book or a season's agents can store has its word (a raw `policy_file` is no label)."""

from __future__ import annotations

import re
from pathlib import Path

from cogleague.league import policies
from cogleague.server import agents

UTIL = (Path(__file__).resolve().parents[2] / "src" / "cogleague" / "web" / "static" / "js"
        / "util.js")


def kind_words() -> dict[str, str]:
    table = re.search(r"const KIND_WORD = \{(.*?)\};", UTIL.read_text(encoding="utf-8"), re.S)
    assert table is not None, "util.js defines no KIND_WORD table"
    return dict(re.findall(r'(\w+): "([^"]+)"', table.group(1)))


def test_every_stored_kind_has_a_word() -> None:
    stored = {policies.BOOK_KINDS.get(k, k) for k in policies.KINDS} | set(agents.KINDS)
    words = kind_words()
    assert stored - words.keys() == set(), sorted(stored - words.keys())
    assert words["policy_file"] != words["policy"]  # a file on disk is not a hosted policy
