"""Promise keeper: promises to cooperate whenever it moves first, and keeps it; cooperates with
an opponent whose promises have been kept, and defects (without promising) against one that has
broken a promise to it in this pairing. With promises off it simply cooperates."""

from __future__ import annotations

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.baselines._base import PROMISE, choose, context


class PromiseKeeper:
    def act(self, turn: Turn) -> Action:
        ctx = context(turn)
        if ctx.opponent_broke_a_promise:
            return choose(False)
        return choose(True, PROMISE if ctx.promises and ctx.first else None)
