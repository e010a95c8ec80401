"""Finding the one JSON object in a model's reply.

Models wrap JSON in prose or code fences. Each game's `parse` decides how it reads a reply (Ledger:
first ``{`` to last ``}``; Commons Family: the first balanced span); this is the balanced-span
reader, shared by anything that needs it (the transcript exporter, test games).
"""

from __future__ import annotations

import json
from typing import Any


def first_object_span(text: str) -> str | None:
    """The first balanced ``{…}`` span, with braces inside JSON strings ignored; None if none."""
    start = text.find("{")
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
                    return text[start:i + 1]
        start = text.find("{", start + 1)  # unbalanced from here: try the next opening brace
    return None


def first_object(text: str) -> dict[str, Any] | None:
    """The first balanced span parsed as a JSON object, or None (no span, or not valid JSON)."""
    span = first_object_span(text)
    if span is None:
        return None
    try:
        doc = json.loads(span)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None
