"""Silver tongue: always promises to cooperate (when promises are on), cooperates when it moves
first and defects whenever it moves second — after reading its opponent's promise."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.baselines._base import PROMISE, choose, context


class SilverTongue:
    def act(self, turn: Turn) -> Action:
        ctx = context(turn)
        return choose(ctx.first, PROMISE if ctx.promises else None)
