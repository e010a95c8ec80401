"""Random: cooperate or defect, 50/50, from the seat's seeded stream."""

from __future__ import annotations

import random

from cogleague.core.game import Action
from cogleague.core.rng import coin
from cogleague.games.dilemma.baselines._base import Baseline, choose
from cogleague.games.dilemma.state import TurnContext


class RandomChoice(Baseline):
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def decide(self, ctx: TurnContext) -> Action:
        return choose(coin(self.rng))
