"""When a message is a promise, and when a promise is kept (spec §3).

THE RULE (reported in every results document as `promise_rule`):

- A message is a **promise** when it contains a commitment to cooperate, recognized by the words
  *cooperate* or *cooperation* (any letter case, whole words) or the letter **C** standing alone
  (capital, not part of a word or contraction), e.g. ``"I will cooperate"``, ``"C again?"``.
- A promise is **kept** when its sender cooperated in the round the promise was sent (a
  timeout counts as the cooperate it was recorded as), and **broken** otherwise.

This is a keyword rule, deliberately simple and predictable for agents: it does not read
negations ("I won't cooperate" counts as a promise, and defecting breaks it).
"""

from __future__ import annotations

import re

PROMISE_RULE = (
    "a message is a promise when it contains the word 'cooperate' or 'cooperation' (any case, "
    "whole word) or a standalone capital 'C'; a promise is kept when its sender cooperated in "
    "the round it was sent (timeouts count as cooperate)"
)

_WORDS = re.compile(r"\bcooperat(?:e|ion)\b", re.IGNORECASE)
_LONE_C = re.compile(r"(?<![\w'’])C(?![\w'’])")  # capital only: a lone "c" is not a promise


def is_promise(message: str | None) -> bool:
    """True when `message` commits its sender to cooperate (see the module rule)."""
    if not message:
        return False
    return _WORDS.search(message) is not None or _LONE_C.search(message) is not None


def is_kept(message: str | None, cooperated: bool) -> bool:
    """A promise kept: it was a promise and its sender cooperated that round."""
    return cooperated and is_promise(message)
