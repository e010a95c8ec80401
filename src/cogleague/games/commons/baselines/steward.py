"""`steward` — the default and fallback: take the sustainable quota, keep the resource alive,
never sanction. Its thresholds (0.15 pollution, 30 apples) are tuned so that six stewards never
kill any resource."""

from __future__ import annotations

import math

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.modules.allelopathic import FIELD_SIZE
from cogleague.games.commons.modules.common import COLOR_INDEX, EFFORT_BUDGET

CLEAN_ABOVE_POLLUTION = 0.15
CLEAN_ABOVE_CENTI = round(CLEAN_ABOVE_POLLUTION * c.POLLUTION_LATTICE)  # compared on the lattice
MIN_APPLES_TO_HARVEST = 30.0


def steward_move(v: c.RoundView, me: c.SeatView, slot: int, q: int) -> Action:
    """Steward's decision with quota `q` (fair_share swaps in its own quota)."""
    module = v.module
    if module == "cleanup":
        clean = 1 if v.pollution_centi > CLEAN_ABOVE_CENTI else 0
        take = min(q, EFFORT_BUDGET - clean)
        if v.apples < MIN_APPLES_TO_HARVEST:
            take = 0
        return c.cleanup_move(take, clean)
    if module == "harvest":
        patch = c.target_patch(v, me, slot)
        if patch is None:
            return c.harvest_move(0, 0)
        return c.harvest_move(patch[0], max(0, min(q, math.floor(patch[1] - 1))))
    if module == "allelopathic":
        colour = v.plurality
        plant = 0
        if me.favorite != colour and v.planted[COLOR_INDEX[colour]] < FIELD_SIZE:
            plant = 1
        return c.eat_move(allelopathic_eat(v, colour, q, plant), colour, plant)
    if not me.may_eat:
        return c.mushroom_move(0, "red")
    return c.mushroom_move(1, "green" if v.counts[1] > 0 else "red")


def allelopathic_eat(v: c.RoundView, colour: str, q: int, plant: int) -> int:
    """``min(quota, 3 − plant, floor(ripe[colour] / N))``, never below 0."""
    ripe = v.ripe[COLOR_INDEX[colour]]
    return max(0, min(q, EFFORT_BUDGET - plant, math.floor(ripe / v.num_players)))


class Steward(c.Baseline):
    name = "steward"

    def choose(self, v: c.RoundView, me: c.SeatView) -> Action:
        move = steward_move(v, me, self.slot, v.quota)
        if v.round == 0:
            c.say(v, move, "Let's each take only the sustainable share.")
        return move
