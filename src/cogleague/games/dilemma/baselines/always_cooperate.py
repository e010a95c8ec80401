"""Always cooperate (also the table's fallback: a missed turn is a cooperate)."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.payoffs import COOPERATE


class AlwaysCooperate:
    def act(self, turn: Turn) -> Action:
        return {"action": COOPERATE}
