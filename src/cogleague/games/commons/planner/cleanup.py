"""Cleanup planner (rules §7.1, §9): exact branch and bound over the round's total harvest.

Reduction (proved, so the search is complete). Welfare depends on a round's decisions only
through the total harvest H and the total cleaning C. For a fixed H, more cleaning never hurts:
`next_pollution` falls with C, and from a lower pollution the same later play regrows at least
as many apples (`regrow` falls with pollution and, below capacity, rises with apples, and the
harvest shares rise with apples). So C = 3N − H: every effort unit not harvesting cleans. A
demand above the stock takes the whole stock, like H = ceil(apples), so H ranges over
0..min(3N, ceil(apples)). A dead orchard's future welfare is its stock whatever is played.

Bound (admissible). From apples a before round r, welfare of rounds r.. = a + Σ regrowth,
because a harvest moves apples from the tree to a score one for one. Regrowth in round t is
`REGROWTH·(1 − p_t)·b·(1 − b/CAPACITY)` ≤ `REGROWTH·(1 − p_t)·CAPACITY/4`, where p_t, the
pollution after round t, is at least what all 3N units cleaning every round leave. A dead
orchard regrows nothing. At defaults this is 60 + 8.75·20 = 235.0 at the root, and the search
closes the gap: the incumbent is proved optimal (``exact``).
"""

from __future__ import annotations

import math
from typing import Any

from cogleague.games.commons.modules import cleanup as physics
from cogleague.games.commons.modules.common import EFFORT_BUDGET
from cogleague.games.commons.planner.search import SearchResult, branch_and_bound
from cogleague.games.commons.planner.stepper import Raw, Stepper

METHOD = "branch-and-bound over total harvest (clean with every other unit)"
BUDGET = 400_000
"""Child evaluations before the search stops with a valid, looser bound (defaults need ~10^4)."""
MAX_REGROWTH_AT_CLEAN = physics.REGROWTH * physics.CAPACITY / 4
"""The most a live orchard regrows in a round at pollution 0 (at half capacity): 8.75."""


def split_harvest(total: int, n: int) -> list[Raw]:
    """Total harvest `total` spread over n seats (earlier slots take the remainder); every
    other unit cleans."""
    base, rem = divmod(total, n)
    out = []
    for s in range(n):
        h = base + (1 if s < rem else 0)
        out.append({"harvest": h, "clean": EFFORT_BUDGET - h})
    return out


class CleanupPlanner:
    def __init__(self, stepper: Stepper) -> None:
        self.stepper = stepper
        self.n = stepper.n
        self.rounds = stepper.rounds
        self._joint = [split_harvest(h, self.n) for h in range(EFFORT_BUDGET * self.n + 1)]

    def children(self, state: physics.CleanupState, r: int) -> list[list[Raw]]:
        if state.dead:
            return [self._joint[0]]
        top = min(EFFORT_BUDGET * self.n, math.ceil(state.apples))
        return [self._joint[h] for h in range(top + 1)]

    def bound(self, state: physics.CleanupState, r: int) -> float:
        if state.dead:
            return state.apples
        total, p = state.apples, state.pollution
        for _ in range(r, self.rounds):
            p = physics.next_pollution(p, EFFORT_BUDGET * self.n)
            total += MAX_REGROWTH_AT_CLEAN * (1 - p)
        return total

    def solve(self) -> SearchResult:
        return branch_and_bound(self.stepper, self.children, self.bound, complete=True,
                                budget=BUDGET, key=_key)


def _key(state: Any) -> tuple[float, float, bool]:
    return (state.apples, state.pollution, state.dead)


def plan(stepper: Stepper) -> tuple[SearchResult, str]:
    return CleanupPlanner(stepper).solve(), METHOD
