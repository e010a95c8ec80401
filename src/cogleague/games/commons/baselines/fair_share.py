"""`fair_share` — a steward whose quota splits ``floor(sustainable)`` exactly, rotating the
remainder units by alias index and round (mushrooms: three cogs eat per round, not none)."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.baselines.steward import steward_move


class FairShare(c.Baseline):
    name = "fair_share"

    def choose(self, v: c.RoundView, me: c.SeatView) -> Action:
        q = c.fair_share_quota(v, me)
        if v.module == "mushrooms" and q < 1:
            return c.mushroom_move(0, "red")
        return steward_move(v, me, self.slot, q)
