"""Pavlov (win-stay, lose-shift): cooperate first; keep the last choice after R or T (the
opponent cooperated), switch after P or S (the opponent defected). Equivalently: cooperate
exactly when both made the same choice last round."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.payoffs import COOPERATE, DEFECT
from cogleague.games.dilemma.state import TurnContext


class Pavlov:
    def act(self, turn: Turn) -> Action:
        ctx: TurnContext = turn.context
        mine = ctx.mine
        return {"action": COOPERATE if not mine or mine[-1] == ctx.theirs[-1] else DEFECT}
