"""Always defect."""

from __future__ import annotations

from collections.abc import Sequence

from cogleague.core.game import Action
from cogleague.games.dilemma.baselines._base import DEFECT_ACTION, Baseline
from cogleague.games.dilemma.state import TurnContext


class AlwaysDefect(Baseline):
    def decide(self, ctx: TurnContext) -> Action:
        return DEFECT_ACTION

    def act_step(self, contexts: Sequence[TurnContext]) -> list[Action]:
        return [DEFECT_ACTION] * len(contexts)
