"""`free_rider` — take the most the rules allow every round; maintain nothing."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.modules.common import EFFORT_BUDGET


def free_rider_move(v: c.RoundView, me: c.SeatView, slot: int) -> Action:
    module = v.module
    if module == "cleanup":
        return c.cleanup_move(EFFORT_BUDGET, 0)
    if module == "harvest":
        patch = c.target_patch(v, me, slot)
        return c.harvest_move(0, 0) if patch is None else c.harvest_move(patch[0],
                                                                         EFFORT_BUDGET)
    if module == "allelopathic":
        return c.eat_move(EFFORT_BUDGET, me.favorite)
    return c.mushroom_move(EFFORT_BUDGET if me.may_eat else 0, "red")


class FreeRider(c.Baseline):
    name = "free_rider"

    def choose(self, v: c.RoundView, me: c.SeatView) -> Action:
        return free_rider_move(v, me, self.slot)
