"""Random: cooperate or defect, 50/50, from the seat's seeded stream."""

from __future__ import annotations

import random

from cogleague.core.game import Action, Turn
from cogleague.core.rng import coin
from cogleague.games.dilemma.baselines._base import choose


class RandomChoice:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, turn: Turn) -> Action:
        return choose(coin(self.rng))
