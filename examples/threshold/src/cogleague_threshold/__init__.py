"""A threshold public-goods game with pledges, for cogleague (rules `threshold-1.0`).

`GAME` (in `descriptor.py`) is the descriptor the ``cogleague.games`` entry point names;
`ThresholdGame` is the pure rules object."""

from __future__ import annotations

from cogleague_threshold.descriptor import GAME, make
from cogleague_threshold.game import ThresholdGame

__all__ = ["GAME", "ThresholdGame", "make"]
