"""Always cooperate (also the table's fallback: a missed turn is a cooperate)."""

from __future__ import annotations

from collections.abc import Sequence

from cogleague.core.game import Action
from cogleague.games.dilemma.baselines._base import COOPERATE_ACTION, Baseline
from cogleague.games.dilemma.state import TurnContext


class AlwaysCooperate(Baseline):
    def decide(self, ctx: TurnContext) -> Action:
        return COOPERATE_ACTION

    def act_step(self, contexts: Sequence[TurnContext]) -> list[Action]:
        return [COOPERATE_ACTION] * len(contexts)
