"""`free_rider` — take the most the rules allow every round; maintain nothing."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.modules.common import EFFORT_BUDGET


def free_rider_move(obs: c.Obs, slot: int) -> Action:
    module = obs["module"]
    if module == "cleanup":
        return c.cleanup_move(EFFORT_BUDGET, 0)
    if module == "harvest":
        patch = c.target_patch(obs, slot)
        return c.harvest_move(0, 0) if patch is None else c.harvest_move(patch["id"],
                                                                         EFFORT_BUDGET)
    if module == "allelopathic":
        return c.eat_move(EFFORT_BUDGET, obs["module_state"]["your_favorite"])
    return c.mushroom_move(0 if c.digesting(obs) else EFFORT_BUDGET, "red")


class FreeRider(c.Baseline):
    name = "free_rider"

    def decide(self, obs: c.Obs) -> Action:
        return free_rider_move(obs, self.slot)
