"""A bot's own exceptions, reported once each and counted, never fatal to its seat.

An exception in `Bot.on_turn` (or `on_event`, `on_error`) used to end the connection with a
long traceback while the table played on with the seat timing out every turn. Now the seat
stays connected: the turn is left unanswered, so it gets the rules' fallback at its deadline,
the exception is logged once per kind (its message and the bot's last frames), and the totals
are in `SeatOutcome.faults` (`cogleague bot run` prints them and exits 1).
"""

from __future__ import annotations

import logging
import traceback
from pathlib import Path

log = logging.getLogger("cogleague.bot")

LAST_FRAMES = 3
"""Frames of the traceback shown with the message (the innermost, the bot's own code)."""


def describe(exc: BaseException) -> str:
    """``ValueError: boom`` and where it was raised (the last frames, innermost last)."""
    frames = traceback.extract_tb(exc.__traceback__)[-LAST_FRAMES:]
    where = " ← ".join(f"{Path(f.filename).name}:{f.lineno} in {f.name}"
                       for f in reversed(frames))
    text = f"{type(exc).__name__}: {exc}"
    return f"{text} (at {where})" if where else text


class FaultLog:
    """Counts of each distinct bot exception, by the hook it escaped from."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def record(self, hook: str, exc: BaseException, context: str) -> None:
        key = f"{hook}: {describe(exc)}"
        first = key not in self.counts
        self.counts[key] = self.counts.get(key, 0) + 1
        if first:
            log.error("%s: the bot raised in %s: %s; the seat stays, the turn falls back by "
                      "the rules (reported once; counted at the end)", context, hook,
                      describe(exc))

    def summary(self) -> list[str]:
        """One line per distinct exception: how often, where, what."""
        return [f"{n}× {key}" for key, n in self.counts.items()]

    def __bool__(self) -> bool:
        return bool(self.counts)
