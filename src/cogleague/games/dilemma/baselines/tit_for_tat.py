"""Tit for tat: cooperate first, then copy the opponent's previous choice in this pairing."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.dilemma.baselines._base import COOPERATE_ACTION, DEFECT_ACTION, Baseline
from cogleague.games.dilemma.state import TurnContext


class TitForTat(Baseline):
    def decide(self, ctx: TurnContext) -> Action:
        theirs = ctx.theirs
        return COOPERATE_ACTION if not theirs or theirs[-1] else DEFECT_ACTION
