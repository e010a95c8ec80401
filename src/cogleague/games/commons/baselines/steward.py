"""`steward` — the default and fallback: take the sustainable quota, keep the resource alive,
never sanction. Its thresholds (0.15 pollution, 30 apples) are tuned so that six stewards never
kill any resource."""

from __future__ import annotations

import math

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.modules.allelopathic import FIELD_SIZE
from cogleague.games.commons.modules.common import EFFORT_BUDGET

CLEAN_ABOVE_POLLUTION = 0.15
CLEAN_ABOVE_CENTI = round(CLEAN_ABOVE_POLLUTION * c.POLLUTION_LATTICE)  # compared on the lattice
MIN_APPLES_TO_HARVEST = 30.0


def steward_move(obs: c.Obs, slot: int, q: int) -> Action:
    """Steward's decision with quota `q` (fair_share swaps in its own quota)."""
    module = obs["module"]
    ms = obs["module_state"]
    if module == "cleanup":
        clean = 1 if c.pollution_centi(obs) > CLEAN_ABOVE_CENTI else 0
        take = min(q, EFFORT_BUDGET - clean)
        if ms["apples"] < MIN_APPLES_TO_HARVEST:
            take = 0
        return c.cleanup_move(take, clean)
    if module == "harvest":
        patch = c.target_patch(obs, slot)
        if patch is None:
            return c.harvest_move(0, 0)
        return c.harvest_move(patch["id"], max(0, min(q, math.floor(patch["stock"] - 1))))
    if module == "allelopathic":
        colour = c.plurality(obs)
        plant = 0
        if ms["your_favorite"] != colour and ms["planted"][colour] < FIELD_SIZE:
            plant = 1
        return c.eat_move(allelopathic_eat(obs, colour, q, plant), colour, plant)
    if c.digesting(obs):
        return c.mushroom_move(0, "red")
    return c.mushroom_move(1, "green" if ms["counts"]["green"] > 0 else "red")


def allelopathic_eat(obs: c.Obs, colour: str, q: int, plant: int) -> int:
    """``min(quota, 3 − plant, floor(ripe[colour] / N))``, never below 0."""
    ripe: float = obs["module_state"]["ripe"][colour]
    n: int = obs["num_players"]
    return max(0, min(q, EFFORT_BUDGET - plant, math.floor(ripe / n)))


class Steward(c.Baseline):
    name = "steward"

    def decide(self, obs: c.Obs) -> Action:
        move = steward_move(obs, self.slot, c.quota(obs))
        if obs["round"] == 0:
            c.say(obs, move, "Let's each take only the sustainable share.")
        return move
