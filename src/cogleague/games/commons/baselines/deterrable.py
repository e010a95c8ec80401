"""`deterrable` — a free rider that behaves as a steward for five rounds after being
sanctioned."""

from __future__ import annotations

import random

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.baselines.free_rider import free_rider_move
from cogleague.games.commons.baselines.steward import steward_move

DETERRED_ROUNDS = 5


class Deterrable(c.Baseline):
    name = "deterrable"

    def __init__(self, slot: int, rng: random.Random | int) -> None:
        super().__init__(slot, rng)
        self.deterred = 0

    def choose(self, v: c.RoundView, me: c.SeatView) -> Action:
        if (me.received or 0) > 0:
            self.deterred = DETERRED_ROUNDS
        if self.deterred > 0:
            self.deterred -= 1
            return steward_move(v, me, self.slot, v.quota)
        return free_rider_move(v, me, self.slot)
