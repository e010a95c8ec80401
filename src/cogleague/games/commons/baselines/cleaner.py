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

MAX_TAKE = 2
"""Two units to take, one to maintain."""


class Cleaner(c.Baseline):
    name = "cleaner"

    def decide(self, obs: c.Obs) -> Action:
        module = obs["module"]
        ms = obs["module_state"]
        q = c.quota(obs)
        if module == "cleanup":
            take = 0 if ms["apples"] < MIN_APPLES_TO_HARVEST else min(q, MAX_TAKE)
            move = c.cleanup_move(take, 1)
        elif module == "harvest":
            move = steward_move(obs, self.slot, q)
            move["harvest"] = min(move["harvest"], MAX_TAKE)
        elif module == "allelopathic":
            colour = c.plurality(obs)
            plant = 1 if ms["planted"][colour] < FIELD_SIZE else 0
            move = c.eat_move(allelopathic_eat(obs, colour, q, plant), colour, plant)
        elif not c.digesting(obs) and ms["counts"]["blue"] > 0:
            move = c.mushroom_move(1, "blue")
        else:
            move = steward_move(obs, self.slot, q)
        if obs["round"] == 0:
            c.say(obs, move, "I maintain every round; please do too.")
        return move
