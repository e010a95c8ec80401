"""`reciprocator` — steward while the others take about their quota, free rider once they
took more than ``quota + 0.5`` each last round."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.baselines.free_rider import free_rider_move
from cogleague.games.commons.baselines.steward import steward_move

TOLERANCE = 0.5


class Reciprocator(c.Baseline):
    name = "reciprocator"

    def decide(self, obs: c.Obs) -> Action:
        q = c.quota(obs)
        total, own = obs["last_round_total_extracted"], obs["your_last_gain"]
        if (obs["round"] > 0 and total is not None and own is not None
                and (total - own) / (obs["num_players"] - 1) > q + TOLERANCE):
            return free_rider_move(obs, self.slot)
        return steward_move(obs, self.slot, q)
