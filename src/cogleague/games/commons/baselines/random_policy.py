"""`random` — a uniform draw over the module's legal actions (nested order: ints ascending,
colours canonical), then one more draw deciding a 15 % chance to sanction a random other."""

from __future__ import annotations

from typing import Any

from cogleague.core.game import Action
from cogleague.games.commons.baselines import common as c
from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET

SANCTION_PROBABILITY = 0.15
UNITS = range(EFFORT_BUDGET + 1)
CLEANUP_ACTIONS = [(h, k) for h in UNITS for k in range(EFFORT_BUDGET + 1 - h)]
ALLELOPATHIC_ACTIONS = [(e, ec, p, pc) for e in UNITS for ec in COLORS
                        for p in range(EFFORT_BUDGET + 1 - e) for pc in COLORS]
MUSHROOM_ACTIONS = [(e, ec) for e in UNITS for ec in COLORS]


class RandomPolicy(c.Baseline):
    name = "random"

    def choose(self, v: c.RoundView, me: c.SeatView) -> Action:
        rng = self.rng
        module = v.module
        move: dict[str, Any]
        if module == "cleanup":
            h, k = rng.choice(CLEANUP_ACTIONS)
            move = c.cleanup_move(h, k)
        elif module == "harvest":
            live = v.live_ids
            if live:
                p, h = rng.choice([(p, h) for p in live for h in UNITS])
                move = c.harvest_move(p, h)
            else:
                move = c.harvest_move(0, 0)
        elif module == "allelopathic":
            e, ec, p, pc = rng.choice(ALLELOPATHIC_ACTIONS)
            move = c.eat_move(e, ec, p, pc)
        else:
            e, ec = rng.choice(MUSHROOM_ACTIONS)
            move = c.mushroom_move(e, ec)
        if rng.random() < SANCTION_PROBABILITY and v.sanctions:
            others = [a for a in v.aliases if a != me.alias]
            if others:
                move["sanction"] = rng.choice(others)
        return move
