"""Always cooperate (also the table's fallback: a missed turn is a cooperate)."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.baselines._base import cooperate


class AlwaysCooperate:
    def act(self, turn: Turn) -> Action:
        return cooperate()
