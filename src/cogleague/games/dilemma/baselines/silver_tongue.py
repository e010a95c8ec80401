"""Silver tongue: always promises to cooperate (when promises are on), cooperates when it moves
first and defects whenever it moves second — after reading its opponent's promise."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.dilemma.baselines._base import PROMISE, Baseline, choose
from cogleague.games.dilemma.state import TurnContext


class SilverTongue(Baseline):
    def decide(self, ctx: TurnContext) -> Action:
        return choose(ctx.first, PROMISE if ctx.promises else None)
