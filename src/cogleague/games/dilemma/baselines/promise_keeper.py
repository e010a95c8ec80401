"""Promise keeper: promises to cooperate whenever it moves first, and keeps it; cooperates with
an opponent whose promises have been kept, and defects (without promising) against one that has
broken a promise to it in this pairing. With promises off it simply cooperates."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.dilemma.baselines._base import PROMISE, Baseline, choose
from cogleague.games.dilemma.state import TurnContext


class PromiseKeeper(Baseline):
    def decide(self, ctx: TurnContext) -> Action:
        if ctx.opponent_broke_a_promise:
            return choose(False)
        return choose(True, PROMISE if ctx.promises and ctx.first else None)
