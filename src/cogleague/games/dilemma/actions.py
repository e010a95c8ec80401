"""Reading a seat's reply: `{"action": "cooperate"|"defect", "message"?}` (spec §5).

Remote programs send a dict; model seats send text, of which the first JSON object is read.
Scripted baselines bypass `parse`, so `Game.apply` runs the same `normalize` on their actions.
"""

from __future__ import annotations

from typing import Any

from cogleague.core.brief import refused_field
from cogleague.core.errors import IllegalAction
from cogleague.core.text import clean_note, first_object
from cogleague.games.dilemma.config import MAX_MESSAGE_CHARS
from cogleague.games.dilemma.payoffs import ACTIONS, COOPERATE

HINT_PROMISES = ('reply with one JSON object: {"action": "cooperate" or "defect", '
                 f'"message": optional promise to this opponent, <= {MAX_MESSAGE_CHARS} chars}}')
HINT_SILENT = ('reply with one JSON object: {"action": "cooperate" or "defect"} '
               '(no message: promises are off at this table)')


def hint(promises: bool) -> str:
    return HINT_PROMISES if promises else HINT_SILENT


def normalize(raw: Any, promises: bool) -> tuple[bool, str | None]:
    """(cooperates, cleaned message or None) from a reply, or `IllegalAction` with its code.

    Codes: ``parse`` (no JSON object), ``illegal_action``, ``message_too_long`` (over
    280 code points before cleaning), ``promises_off`` (a message at a table without promises).
    """
    if isinstance(raw, str):
        obj = first_object(raw)
        if obj is None:
            raise IllegalAction("no JSON object found in the reply", hint=hint(promises),
                                code="parse")
        raw = obj
    if not isinstance(raw, dict):
        raise IllegalAction(f"a move must be a JSON object (got {type(raw).__name__})",
                            hint=hint(promises))
    action = raw.get("action")
    word = action.strip().lower() if isinstance(action, str) else None  # never compare others
    if word not in ACTIONS:
        raise IllegalAction(refused_field(raw, "action", "cooperate or defect"),
                            hint=hint(promises))
    message = raw.get("message")
    if message is None:
        return word == COOPERATE, None
    if not promises:
        raise IllegalAction("message: promises are off at this table", hint=hint(False),
                            code="promises_off")
    if not isinstance(message, str):
        raise IllegalAction(f"message must be a string (got {type(message).__name__})",
                            hint=hint(True))
    if len(message) > MAX_MESSAGE_CHARS:
        raise IllegalAction(f"message must be at most {MAX_MESSAGE_CHARS} code points "
                            f"(got {len(message)})", hint=hint(True), code="message_too_long")
    cleaned = clean_note(message, MAX_MESSAGE_CHARS)
    return word == COOPERATE, cleaned or None
