"""Always defect."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.payoffs import DEFECT


class AlwaysDefect:
    def act(self, turn: Turn) -> Action:
        return {"action": DEFECT}
