"""Mushrooms planner (rules §7.4, §9): eat blue as it spawns, everything worth more than red at
the end.

Bound (admissible). Every mushroom ends eaten (red 1.0, green 2.0, blue 3.0 in total payoff),
left standing (1.0 of residual) or cut (0). So welfare of rounds r.. ≤ (standing now +
3·rounds left of spawns) + a premium: (payoff − 1.0) per mushroom eaten, largest first —
blue (the standing blues and every spawn of rounds r..R−2, as if all came blue; the last
round's spawns cannot be eaten) at 2.0, then standing greens at 1.0 — capped by what the seats
can still eat. A seat free for L more rounds eats at most L + 2 (eating k digests k rounds, so
only the last bite may exceed one a round). At defaults: 24 + 60 + 2·65 + 8 = 222.0.

Plan. Eating blue raises blue's spawn weight (rules: weight 1 + eaten total), so eating seven
blues in round 0 makes every later spawn blue; then each round's three blues are eaten by
free seats, and the last round eats all blue and green. The search tries a few such joint
decisions a round (incomplete); at defaults the plan meets the bound and is exact. Tiny
configs are searched over every joint decision (complete).
"""

from __future__ import annotations

import math
from typing import Any

from cogleague.games.commons.modules import mushrooms as physics
from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET
from cogleague.games.commons.planner import enumerate as enum
from cogleague.games.commons.planner.search import SearchResult, branch_and_bound
from cogleague.games.commons.planner.stepper import Raw, Stepper

PAYOFF = (physics.RED_PAYOFF, physics.GREEN_PAYOFF, physics.BLUE_PAYOFF)
RESIDUAL_VALUE = 1.0
"""Each standing mushroom counts 1.0 of residual value."""
BUDGET = 200_000
BLUE = COLORS.index("blue")


def capacity(state: physics.MushroomsState, r: int, rounds: int) -> int:
    """The most all seats can still eat from round r on."""
    total = 0
    for until in state.frozen_until:
        free_rounds = rounds - max(r, until)
        if free_rounds > 0:
            total += free_rounds + EFFORT_BUDGET - 1
    return total


def bound(state: physics.MushroomsState, r: int, rounds: int) -> float:
    left = rounds - r
    standing = sum(state.counts) + physics.SPAWN_PER_ROUND * left
    eatable = list(state.counts)
    eatable[BLUE] += physics.SPAWN_PER_ROUND * max(0, left - 1)
    cap = float(capacity(state, r, rounds))
    premium = 0.0
    for c in sorted(range(3), key=lambda c: -PAYOFF[c]):
        eat = min(cap, eatable[c])
        premium += (PAYOFF[c] - RESIDUAL_VALUE) * eat
        cap -= eat
    return standing * RESIDUAL_VALUE + premium


def _allot(amount: int, seats: list[int], per_seat: int) -> list[tuple[int, int]]:
    """Spread `amount` over `seats`, one each first, up to `per_seat` each."""
    share = dict.fromkeys(seats, 0)
    for level in range(1, per_seat + 1):
        for s in seats:
            if amount <= 0:
                break
            if share[s] < level:
                share[s] += 1
                amount -= 1
    return [(s, k) for s, k in share.items() if k > 0]


class Children:
    def __init__(self, stepper: Stepper) -> None:
        self.n = stepper.n
        self.rounds = stepper.rounds

    def _joint(self, eats: list[tuple[int, int, str]]) -> list[Raw]:
        joint: list[Raw] = [{"eat": 0, "eat_color": "red"} for _ in range(self.n)]
        for s, k, c in eats:
            joint[s] = {"eat": k, "eat_color": c}
        return joint

    def _eat_by_value(self, state: physics.MushroomsState, free: list[int],
                      per_seat: int, colours: list[int]) -> list[tuple[int, int, str]]:
        eats: list[tuple[int, int, str]] = []
        seats = list(free)
        for c in colours:
            left = math.floor(state.counts[c])
            while seats and left > 0:
                k = min(per_seat, left)
                eats.append((seats.pop(0), k, COLORS[c]))
                left -= k
        return eats

    def __call__(self, state: physics.MushroomsState, r: int) -> list[list[Raw]]:
        free = [s for s in range(self.n) if r >= state.frozen_until[s]]
        blue = math.floor(state.counts[BLUE])
        if r == self.rounds - 1:  # nothing to digest after: everyone eats all it may
            return [self._joint(self._eat_by_value(state, free, EFFORT_BUDGET, [2, 1]))]
        options = [
            [(s, k, "blue") for s, k in _allot(blue, free, EFFORT_BUDGET)],
            [(s, k, "blue") for s, k in _allot(min(blue, len(free)), free, 1)],
            [(s, k, "blue") for s, k in _allot(blue, free, 2)],
            [],
        ]
        out, seen = [], set()
        for eats in options:
            key = tuple(eats)
            if key not in seen:
                seen.add(key)
                out.append(self._joint(eats))
        return out


def _key(state: physics.MushroomsState) -> tuple[Any, ...]:
    return (tuple(state.counts), tuple(state.eaten_total), tuple(state.frozen_until))


def plan(stepper: Stepper) -> tuple[SearchResult, str]:
    rounds = stepper.rounds

    def b(state: Any, r: int) -> float:
        return bound(state, r, rounds)

    if enum.joint_count("mushrooms", 0, stepper.n) <= enum.MAX_JOINT:
        joint = enum.all_joint("mushrooms", 0, stepper.n)
        res = branch_and_bound(stepper, lambda s, r: joint, b, complete=True, budget=BUDGET,
                               key=_key)
        return res, "branch-and-bound over every joint decision"
    res = branch_and_bound(stepper, Children(stepper), b, complete=False, budget=BUDGET,
                           key=_key)
    return res, "branch-and-bound over blue-first eating plans"
