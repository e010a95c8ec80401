"""The seat interface the episode runner talks to (defined in `core/seat.py`, where the runner
reads it; re-exported here for seat authors)."""

from cogleague.core.seat import (
    CAUSES,
    SEAT_KINDS,
    AnswersNow,
    Closes,
    FallbackCause,
    HearsDecisions,
    Seat,
    SeatCapabilities,
    capabilities,
)

__all__ = ["CAUSES", "SEAT_KINDS", "AnswersNow", "Closes", "FallbackCause", "HearsDecisions",
           "Seat", "SeatCapabilities", "capabilities"]
