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

    def choose(self, v: c.RoundView, me: c.SeatView) -> Action:
        q = v.quota
        total, own = v.last_total, me.last_gain
        if (v.round > 0 and total is not None and own is not None
                and (total - own) / (v.num_players - 1) > q + TOLERANCE):
            return free_rider_move(v, me, self.slot)
        return steward_move(v, me, self.slot, q)
