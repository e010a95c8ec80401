"""Text from seats: cut on code-point boundaries, cleaned, and quoted as data for prompts.

Python strings are sequences of code points, so slicing never splits a character and the
result always encodes to valid UTF-8.
"""

from __future__ import annotations

import json
import unicodedata

ELLIPSIS = "…"


def strip_controls(text: str) -> str:
    """CR, LF and TAB become spaces; every other Cc (control) character is dropped."""
    out = []
    for ch in text:
        if ch in "\r\n\t":
            out.append(" ")
        elif unicodedata.category(ch) == "Cc":
            continue
        else:
            out.append(ch)
    return "".join(out)


def cut(text: str, limit: int) -> str:
    """The first `limit` code points."""
    return text[:limit]


def cut_with_ellipsis(text: str, limit: int) -> str:
    """Over `limit` code points: the first limit-1 plus "…" (so the result is <= limit)."""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + ELLIPSIS


def clean_note(text: object, limit: int) -> str:
    """Seat free text to a safe one-liner: controls out, stripped, cut with an ellipsis.

    Non-strings give "" (no note)."""
    if not isinstance(text, str):
        return ""
    return cut_with_ellipsis(strip_controls(text).strip(), limit)


def quote(text: str) -> str:
    """Seat text as a JSON string literal: shown to models as data, never as instructions."""
    return json.dumps(text, ensure_ascii=False)
