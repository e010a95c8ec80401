"""Text from seats and users, checked once where it enters the server.

A lone surrogate (the JSON escape ``\\ud800``) or a NUL that reached the log writer would fail
the database write of the step it is in; so a frame or a request body carrying one is refused
here, with the error code ``bad_text`` naming the field, before a game, a table or the store
sees it. The seat's turn stays open: it may send the move again with valid text.
The rule itself (`core.text.text_fault`) is shared with every host.
"""

from __future__ import annotations

from typing import Any

from cogleague.core.text import bad_text
from cogleague.server.errors import ApiError

BAD_TEXT = "bad_text"
"""The error code (an `error` frame's `code`, an HTTP 400 body's `error.code`)."""

MAX_PATH_CHARS = 120
"""A field path longer than this is cut (a deeply nested document names a long path)."""


def _message(found: tuple[str, str], what: str) -> str:
    path, why = found
    if len(path) > MAX_PATH_CHARS:
        path = path[:MAX_PATH_CHARS - 1] + "…"
    return f"{path}: text must be valid Unicode without NUL: {why}; the {what} was not used"


def frame_fault(text: str, doc: Any) -> str | None:
    """The `bad_text` message for a decoded frame, or None when its text is fine.

    Text frames are valid UTF-8 on the wire and JSON refuses raw control characters, so a
    lone surrogate or a NUL arrives only as a ``\\u`` escape: a frame without one is passed
    without walking it (every move of every seat comes here)."""
    if "\\u" not in text:
        return None
    found = bad_text(doc)
    return None if found is None else _message(found, "frame")


def check_body(doc: Any) -> None:
    """Refuse a request body holding text that cannot be stored: HTTP 400 ``bad_text``."""
    found = bad_text(doc)
    if found is not None:
        raise ApiError(400, BAD_TEXT, _message(found, "request"))
