"""Always defect."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.baselines._base import defect


class AlwaysDefect:
    def act(self, turn: Turn) -> Action:
        return defect()
