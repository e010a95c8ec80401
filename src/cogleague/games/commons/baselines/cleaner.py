"""`cleaner` — always puts one unit into maintenance (clean, leave stock, plant, eat blue)."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.baselines.steward import (
    MIN_APPLES_TO_HARVEST,
    allelopathic_eat,
    steward_move,
)
from cogleague.games.commons.modules.allelopathic import FIELD_SIZE
from cogleague.games.commons.modules.common import COLOR_INDEX

MAX_TAKE = 2
"""Two units to take, one to maintain."""


class Cleaner(c.Baseline):
    name = "cleaner"

    def choose(self, v: c.RoundView, me: c.SeatView) -> Action:
        module = v.module
        q = v.quota
        if module == "cleanup":
            take = 0 if v.apples < MIN_APPLES_TO_HARVEST else min(q, MAX_TAKE)
            move = c.cleanup_move(take, 1)
        elif module == "harvest":
            move = steward_move(v, me, self.slot, q)
            move["harvest"] = min(move["harvest"], MAX_TAKE)
        elif module == "allelopathic":
            colour = v.plurality
            plant = 1 if v.planted[COLOR_INDEX[colour]] < FIELD_SIZE else 0
            move = c.eat_move(allelopathic_eat(v, colour, q, plant), colour, plant)
        elif me.may_eat and v.counts[2] > 0:
            move = c.mushroom_move(1, "blue")
        else:
            move = steward_move(v, me, self.slot, q)
        if v.round == 0:
            c.say(v, move, "I maintain every round; please do too.")
        return move
