"""Tit for tat: cooperate first, then copy the opponent's previous choice in this pairing."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.baselines._base import choose, context


class TitForTat:
    def act(self, turn: Turn) -> Action:
        theirs = context(turn).theirs
        return choose(not theirs or theirs[-1])
