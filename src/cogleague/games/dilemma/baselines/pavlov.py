"""Pavlov (win-stay, lose-shift): cooperate first; keep the last choice after R or T (the
opponent cooperated), switch after P or S (the opponent defected). Equivalently: cooperate
exactly when both made the same choice last round."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.dilemma.baselines._base import COOPERATE_ACTION, DEFECT_ACTION, Baseline
from cogleague.games.dilemma.state import TurnContext


class Pavlov(Baseline):
    def decide(self, ctx: TurnContext) -> Action:
        mine = ctx.mine
        return COOPERATE_ACTION if not mine or mine[-1] == ctx.theirs[-1] else DEFECT_ACTION
