"""Allelopathic planner (rules §7.3, §9): plant towards a target field, fans eat their colour.

Plan. A family of closed-loop plans, one per target field — each monoculture, no planting,
and two-colour fields at several splits — each played through the real physics: seats whose
favourite is not in the target plant towards it along the fewest units (a breadth-first
search over the module's own source rule), before or after eating their own favourite; fans
eat their favourite (2.0 a berry), and spare ripe berries that would overflow their colour's
slots are eaten at 1.0 by seats with effort left; the last round eats everything ripe. The
best plan is kept. This is a heuristic (a field of 1891 plantings with three ripe stocks has
no small exact search), so `exact` is only claimed if it meets the bound.

Bound (admissible, loose). A round's gains are at most 2.0 a berry on at most 3N berries, and
the residual is at most `FIELD_SIZE` ripe berries (ripe ≤ planted): ≤ 2.0·3N·rounds + 60.
Alternatively, berries eaten plus berries left never exceed the ripe at start plus all
ripening, which is ≤ `ripen_amount(60)` = 30 a round (ripening is convex in a colour's share,
so a monoculture ripens most), and the favourite bonus adds at most 1.0 on at most 3N berries
a round. The smaller of the two holds; at defaults min(780.0, 978.0) = 780.0.
"""

from __future__ import annotations

import math
from itertools import combinations

from cogleague.games.commons.modules import allelopathic as physics
from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET
from cogleague.games.commons.planner import enumerate as enum
from cogleague.games.commons.planner.search import SearchResult, branch_and_bound
from cogleague.games.commons.planner.stepper import Raw, Stepper

SPLITS = (33, 40)
"""Shares of the first colour tried for two-colour target fields."""
BUDGET = 200_000


def bound(state: physics.AllelopathicState, r: int, rounds: int, n: int) -> float:
    left = rounds - r
    bonus = physics.FAVORITE_BONUS - physics.OTHER_PAYOFF
    by_eating = physics.FAVORITE_BONUS * EFFORT_BUDGET * n * left + physics.FIELD_SIZE
    by_ripening = (sum(state.ripe) + physics.ripen_amount(physics.FIELD_SIZE) * left
                   + bonus * EFFORT_BUDGET * n * left)
    return min(by_eating, by_ripening)


def targets() -> list[tuple[int, int, int]]:
    size = physics.FIELD_SIZE
    even = size // 3
    out = [(even, even, size - 2 * even)]
    for c in range(3):
        t = [0, 0, 0]
        t[c] = size
        out.append((t[0], t[1], t[2]))
    for a, b in combinations(range(3), 2):
        for share in SPLITS:
            for first, second in ((a, b), (b, a)):
                t = [0, 0, 0]
                t[first], t[second] = share, size - share
                if tuple(t) not in out:
                    out.append((t[0], t[1], t[2]))
    return out


def path_to(planted: tuple[int, int, int], target: tuple[int, int, int]) -> list[int]:
    """The fewest planting units (their colours, in order) turning `planted` into `target`,
    found by breadth-first search over the module's own `plant_source` rule."""
    if planted == target:
        return []
    prev: dict[tuple[int, int, int], tuple[tuple[int, int, int], int]] = {planted: (planted, -1)}
    frontier = [planted]
    while frontier:
        nxt = []
        for p in frontier:
            for c in range(3):
                src = physics.plant_source(p, c)
                if p[src] == 0:
                    continue
                q = list(p)
                q[src] -= 1
                q[c] += 1
                qt = (q[0], q[1], q[2])
                if qt in prev:
                    continue
                prev[qt] = (p, c)
                if qt == target:
                    units = []
                    while qt != planted:
                        qt, c2 = prev[qt]
                        units.append(c2)
                    return units[::-1]
                nxt.append(qt)
        frontier = nxt
    return []


class TargetPolicy:
    """One joint decision a round towards `target` (see the module docstring)."""

    def __init__(self, stepper: Stepper, target: tuple[int, int, int],
                 eat_first: bool) -> None:
        self.eat_first = eat_first
        self.n = stepper.n
        self.rounds = stepper.rounds
        self.target = target
        self.fav = [COLORS.index(f) for f in stepper.setup.favorites]

    def __call__(self, state: physics.AllelopathicState, r: int) -> list[list[Raw]]:
        n, target = self.n, self.target
        last = r == self.rounds - 1
        planted, ripe = state.planted, state.ripe
        joint: list[Raw] = [{"eat": 0, "eat_color": "red", "plant": 0, "plant_color": "red"}
                            for _ in range(n)]
        effort = [EFFORT_BUDGET] * n
        left = [math.floor(x) for x in ripe]
        units = [] if last else path_to((planted[0], planted[1], planted[2]), target)
        if self.eat_first:
            self._fans_eat(joint, effort, left)
        # 1. seats whose favourite is not in the target plant towards it, in slot order
        for s in range(n):
            if not units or target[self.fav[s]] > 0:
                continue
            c, k = units[0], 0
            while units and units[0] == c and k < effort[s]:
                units.pop(0)
                k += 1
            joint[s].update(plant=k, plant_color=COLORS[c])
            effort[s] -= k
        if not self.eat_first:
            self._fans_eat(joint, effort, left)
        # 3. spare berries that would overflow (or the last round's) go to idle eaters
        for s in range(n):
            if effort[s] == 0 or joint[s]["eat"] > 0:
                continue
            spare = [left[c] if last else
                     min(left[c], math.floor(ripe[c] + physics.ripen_amount(planted[c])
                                             - planted[c]))
                     for c in range(3)]
            c = max(range(3), key=lambda c: (spare[c], -c))
            k = min(effort[s], spare[c])
            if k > 0:
                joint[s].update(eat=k, eat_color=COLORS[c])
                left[c] -= k
                effort[s] -= k
        return [joint]

    def _fans_eat(self, joint: list[Raw], effort: list[int], left: list[int]) -> None:
        """Fans eat their favourite colour (2.0 a berry) with the effort they have left."""
        for s in range(self.n):
            c = self.fav[s]
            k = min(effort[s], left[c])
            if k > 0:
                joint[s].update(eat=k, eat_color=COLORS[c])
                left[c] -= k
                effort[s] -= k


def plan(stepper: Stepper) -> tuple[SearchResult, str]:
    rounds, n = stepper.rounds, stepper.n

    def b(state: physics.AllelopathicState, r: int) -> float:
        return bound(state, r, rounds, n)

    if enum.joint_count("allelopathic", 0, n) <= enum.MAX_JOINT:
        joint = enum.all_joint("allelopathic", 0, n)
        res = branch_and_bound(stepper, lambda s, r: joint, b, complete=True, budget=BUDGET,
                               key=_key)
        return res, "branch-and-bound over every joint decision"
    best: SearchResult | None = None
    for target in targets():
        for eat_first in (True, False):
            res = branch_and_bound(stepper, TargetPolicy(stepper, target, eat_first), b,
                                   complete=False, budget=BUDGET)
            if best is None or res.best > best.best:
                best = res
                best.notes["target"] = list(target)
    assert best is not None
    return best, f"best target-field plan (target planted {best.notes['target']})"


def _key(state: physics.AllelopathicState) -> tuple[tuple[int, ...], tuple[float, ...]]:
    return tuple(state.planted), tuple(state.ripe)
