"""Pavlov (win-stay, lose-shift): cooperate first; keep the last choice after R or T (the
opponent cooperated), switch after P or S (the opponent defected). Equivalently: cooperate
exactly when both made the same choice last round."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.baselines._base import choose, context


class Pavlov:
    def act(self, turn: Turn) -> Action:
        ctx = context(turn)
        if not ctx.mine:
            return choose(True)
        return choose(ctx.mine[-1] == ctx.theirs[-1])
