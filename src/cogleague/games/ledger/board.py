"""Gossip and memos (spec §7).

A note is a public review (≤ 120 code points) of the seat's partner from its PREVIOUS round —
the last outcome it has seen; round 1 has no target, so any note is discarded. Accepted notes go
on one public board, attributed by alias. Gossip is cheap talk: it never changes a payoff.
A memo (≤ 400) is a private scratchpad: only its author sees it (spectators do too).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cogleague.core.text import clean_note

NOTE_LIMIT = 120
MEMO_LIMIT = 400
SEAT_BOARD_WINDOW = 12  # notes a seat reads
VIEWER_BOARD_WINDOW = 5  # notes the viewer shows


class Note(NamedTuple):
    """One accepted note; `round` is the 0-based round it was written in."""

    round: int
    author: int
    subject: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "author": self.author, "subject": self.subject,
                "text": self.text}


def clean_note_text(text: object) -> str:
    """CR/LF/TAB → space, other controls dropped, stripped, > 120 → 119 + "…"; "" = no note."""
    return clean_note(text, NOTE_LIMIT)


def clean_memo_text(text: object) -> str:
    """The same cleaning with the 400 code-point memo limit; "" = keep the current memo."""
    return clean_note(text, MEMO_LIMIT)


def wrong_subject(subject: object, target: str) -> str | None:
    """Why a note naming `subject` is dropped when it must review `target`, or None when it
    may stand (no subject named, or the right one). Gossip is cheap talk: a dropped note
    never costs the reply its move, so the reason says that the move stands."""
    if subject is None or subject == target:
        return None
    return (f"note dropped: subject must be {target!r} (your partner of the previous round, "
            f"the only alias a note may review this round) (got {subject!r}); the move stands")


NO_TARGET_YET = ("note dropped: round 1 has no note target (no partner to review yet), so no "
                 "note can be posted this round; the move stands")
"""Why a round-1 note is dropped: said to the seat as a wrong subject's reason is."""


def note_target(schedule_slots: list[list[Any]], seat: int, round_index: int) -> int | None:
    """The seat whose meeting with `seat` a note written in `round_index` reviews (None in
    round 0). `schedule_slots[r][seat]` is that seat's `Slot` in round r."""
    if round_index == 0:
        return None
    return int(schedule_slots[round_index - 1][seat].partner)
