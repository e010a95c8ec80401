"""Text from seats: cut on code-point boundaries, cleaned, and quoted as data for prompts.

Python strings are sequences of code points, so slicing never splits a character and the
result always encodes to valid UTF-8.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

ELLIPSIS = "…"


def strip_controls(text: str) -> str:
    """CR, LF and TAB become spaces; every other Cc (control) character is dropped."""
    if text.isprintable():  # no Cc at all (the common case): nothing to replace or drop
        return text
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


def first_object_span(text: str, start: int = 0) -> str | None:
    """The first balanced ``{…}`` span at or after `start`, braces inside JSON strings ignored;
    None if none. Models wrap their JSON in prose or code fences; this finds what they meant."""
    span = _balanced_span(text, text.find("{", start))
    return None if span is None else text[span[0]:span[1]]


def _balanced_span(text: str, start: int) -> tuple[int, int] | None:
    while start != -1:
        depth = 0
        in_string = escaped = False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return start, i + 1
        start = text.find("{", start + 1)  # unbalanced from here: try the next opening brace
    return None


def first_object(text: str) -> dict[str, Any] | None:
    """The first balanced span that parses as a JSON object, or None.

    Lenient on purpose: a span that is not JSON (``{thinking}``) is skipped, not fatal. Games
    whose rules read strictly the first span use `first_object_span`."""
    span = _balanced_span(text, text.find("{"))
    while span is not None:
        try:
            doc = json.loads(text[span[0]:span[1]])
        except (ValueError, RecursionError):
            doc = None
        if isinstance(doc, dict):
            return doc
        span = _balanced_span(text, text.find("{", span[0] + 1))
    return None
