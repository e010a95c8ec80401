"""Reading a seat's reply (spec §13): `{"move", "note"?, "memo"?}`.

A reply may also name its note's `subject` (an alias). A wrong one drops the note, never the
move, as does any note in round 1 (no target yet): gossip is cheap talk and never changes a
payoff or a score (the Ledger seed). The drop is the reply's `reason` (the runner counts a
`wrong_shape` fault, the server tells the seat, a model seat's next prompt says it).

Raw replies are dicts (remote and SDK seats) or text (model seats: the JSON object from the first
`{` to the last `}`). Out-of-range moves are clamped and flagged, never retried; unusable replies
raise `IllegalAction` with a hint naming the legal form, and the runner retries once.
"""

from __future__ import annotations

import math
import re
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, ROUND_FLOOR, Context, Decimal, InvalidOperation
from typing import Any

from cogleague.core.brief import refused_field
from cogleague.core.errors import IllegalAction
from cogleague.core.game import Parsed
from cogleague.core.text import loads_reply
from cogleague.games.ledger.board import (
    MEMO_LIMIT,
    NO_TARGET_YET,
    NOTE_LIMIT,
    clean_memo_text,
    clean_note_text,
    wrong_subject,
)
from cogleague.games.ledger.schedule import Slot
from cogleague.games.ledger.subgames import COOPERATE, DEFECT, DILEMMA

DILEMMA_WORDS = {"cooperate": COOPERATE, "c": COOPERATE, "coop": COOPERATE,
                 "defect": DEFECT, "d": DEFECT}
NUMBER = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*(?:%|coins?)?$", re.IGNORECASE)
HALF = Decimal("0.5")
EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)
"""Decimal arithmetic that never rounds: the default context keeps 28 digits, which read
"0.4999…" (31 digits) as a half and so as 1."""
FAR_DIGITS = 6  # 10**6 is beyond every legal range (the widest is 0..100)
FAR: int = 10**FAR_DIGITS
SUBJECT_LIMIT = 40  # an alias is far shorter; longer text cannot match one anyway


def hint(slot: Slot, target: str | None) -> str:
    """The legal form of a reply for this seat this round (sent with the retry)."""
    about = f" reviewing {target}" if target else " (no note target this round)"
    words = " (or \"cooperate\"/\"defect\")" if slot.subgame == DILEMMA else ""
    return (f'Reply with one JSON object: {{"move": <integer {slot.lo}..{slot.hi}>{words}, '
            f'"note": <optional string, at most {NOTE_LIMIT} characters{about}>, '
            f'"memo": <optional string, at most {MEMO_LIMIT} characters>}}.')


def extract_object(raw: Any, slot: Slot, target: str | None) -> dict[str, Any]:
    """The reply as a dict: a dict as is; text from its first `{` to its last `}`."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        start, end = raw.find("{"), raw.rfind("}")
        if start != -1 and end > start:
            try:  # an integer literal too long to read is a LongInteger: not a move
                doc = loads_reply(raw[start:end + 1])
            except (ValueError, RecursionError):
                doc = None
            if isinstance(doc, dict):
                return doc
    raise IllegalAction("no JSON object found in the reply", hint=hint(slot, target),
                        code="parse")


def read_move(value: Any, subgame: str) -> int | None:
    """The move as an int, rounded half up, before clamping; None if unusable."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return math.floor(value + 0.5) if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if subgame == DILEMMA and text.lower() in DILEMMA_WORDS:
        return DILEMMA_WORDS[text.lower()]
    match = NUMBER.match(text)
    if match is None:
        return None
    try:
        number = Decimal(match.group(1))
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        return None
    if number.adjusted() >= FAR_DIGITS:  # |number| >= 10**FAR_DIGITS: clamped by its sign alone
        return FAR if number > 0 else -FAR
    return int(EXACT.add(number, HALF).to_integral_value(rounding=ROUND_FLOOR, context=EXACT))


def parse_reply(raw: Any, slot: Slot, target: str | None) -> Parsed:
    """Normalize a reply: the clamped move, the cleaned note (only with a target) and memo."""
    doc = extract_object(raw, slot, target)
    move = read_move(doc.get("move"), slot.subgame)
    if move is None:
        raise IllegalAction(refused_field(doc, "move", f"an integer {slot.lo}..{slot.hi}"),
                            hint=hint(slot, target))
    clamped = min(max(move, slot.lo), slot.hi)
    action: dict[str, Any] = {"move": clamped}
    note = clean_note_text(doc.get("note"))
    dropped = None
    if note and target is None:
        dropped = NO_TARGET_YET  # round 1: nothing to review, and the seat is told so
    elif note and target is not None:
        subject = doc.get("subject")  # optional: whom the seat says it reviews
        dropped = wrong_subject(subject[:SUBJECT_LIMIT], target) if isinstance(
            subject, str) else None
        if dropped is None:
            action["note"] = note
    memo = clean_memo_text(doc.get("memo"))
    if memo:
        action["memo"] = memo
    return Parsed(action, clamped=clamped != move, reason=dropped)
