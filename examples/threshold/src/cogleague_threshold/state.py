"""What scripted seats read of the table (`Turn.context`): frozen, so a baseline cannot change
the game it plays."""

from __future__ import annotations

from dataclasses import dataclass

from cogleague_threshold.config import ThresholdConfig


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """One settled round, as every seat saw it revealed."""

    round: int
    pledges: tuple[int, ...] | None
    contributions: tuple[int, ...]
    total: int
    met: bool
    payoffs: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Context:
    config: ThresholdConfig
    round: int
    phase: str  # "pledge" | "contribute"
    pledges: tuple[int, ...] | None  # this round's, once every pledge is in
    history: tuple[RoundRecord, ...]
