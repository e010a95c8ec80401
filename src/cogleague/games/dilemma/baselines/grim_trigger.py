"""Grim trigger: cooperate until the opponent's first defection in this pairing, then defect."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.baselines._base import choose, context


class GrimTrigger:
    def act(self, turn: Turn) -> Action:
        return choose(all(context(turn).theirs))
