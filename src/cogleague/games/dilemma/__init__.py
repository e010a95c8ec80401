"""Prisoner's Dilemma tables (rules `dilemma-0.1`): a round robin with promises, timeouts and
paid tables. `GAME` (in `descriptor.py`) registers it; `DilemmaGame` is the pure rules object."""

from __future__ import annotations

from cogleague.games.dilemma.descriptor import GAME, make
from cogleague.games.dilemma.game import DilemmaGame

__all__ = ["GAME", "DilemmaGame", "make"]
