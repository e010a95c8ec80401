"""Tit for tat: cooperate first, then copy the opponent's previous choice in this pairing."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.payoffs import COOPERATE, DEFECT
from cogleague.games.dilemma.state import TurnContext


class TitForTat:
    def act(self, turn: Turn) -> Action:
        ctx: TurnContext = turn.context
        theirs = ctx.theirs
        return {"action": COOPERATE if not theirs or theirs[-1] else DEFECT}
