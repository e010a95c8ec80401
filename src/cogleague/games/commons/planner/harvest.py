"""Harvest planner (rules §7.2, §9): every patch kept at its most productive stock.

Bound (admissible). From stocks s_p before round r, welfare of rounds r.. = Σ_p s_p + Σ
regrowth, since a harvest moves fish from a patch to a score one for one and a dying patch
only loses fish. A live patch regrows at most `MAX_GROWTH` = 0.4·20/4 = 2.0 a round (at
stock 10), a dead one nothing: welfare ≤ Σ_live (s_p + 2.0·(rounds left)). At defaults
6·(12 + 2·20) = 312.0.

Open and closed rights (defaults). Harvesting 2 a round from every patch holds it at 12 →
10 → 12.0 exactly, so the greedy plan "take each patch down to 10" meets the bound: exact.
It needs one seat per patch per round, which six seats (each owning one of six patches under
closed rights) have.

Partnership. A pair holds a patch only when both partners name it, so a pair works at most
one of its two patches a round while the other only regrows; the bound above is then out of
reach (strictly below 312 at defaults). Pairs of distinct seats share nothing, so each pair is
searched alone (branch and bound over which patch and how much, 0..6, every round — complete)
with the other seats passing; the plans are merged. Each pair search has a work budget; when
it is spent the pair's bound is its largest unexplored bound.

Any other shape (seats owning or partnering several patches, tiny configs) is searched over
every joint decision when those are few, else over the greedy decision alone (then only the
root bound is claimed).
"""

from __future__ import annotations

import math
from typing import Any

from cogleague.games.commons.modules import harvest as physics
from cogleague.games.commons.modules.common import EFFORT_BUDGET
from cogleague.games.commons.planner import enumerate as enum
from cogleague.games.commons.planner import pairgrid
from cogleague.games.commons.planner.search import SearchResult, branch_and_bound
from cogleague.games.commons.planner.stepper import Raw, Stepper

BEST_STOCK = physics.PATCH_CAPACITY / 2
"""Logistic regrowth peaks at half capacity (10 fish): the stock a planner keeps."""
PAIR_BUDGET = 150_000
"""Child evaluations per partnership pair."""
SEARCH_BUDGET = 300_000
_PAIR_MEMO: dict[tuple[int, int, int],
                 dict[tuple[int, int], tuple[SearchResult, list[int], list[int]]]] = {}
"""Pair searches by (rounds, seats, patches) and pair shape. Every pair starts at the same
stocks and no rule looks at seat numbers, so a solved pair is re-used for any pair of the
same shape, in this config or another seed's (only the slots and patch ids are translated)."""


def bound(state: physics.HarvestState, r: int, rounds: int) -> float:
    left = rounds - r
    return sum(s + physics.MAX_GROWTH * left
               for s, d in zip(state.stocks, state.dead, strict=True) if not d)


def _key(state: physics.HarvestState) -> tuple[tuple[float, ...], tuple[bool, ...]]:
    return tuple(state.stocks), tuple(state.dead)


def wanted(stock: float) -> int:
    """Fish to take so the patch is left nearest its best stock (never below it by more than
    half a fish)."""
    return max(0, math.floor(stock - BEST_STOCK + 0.5))


def pass_all(n: int) -> list[Raw]:
    """Everyone names patch 0 and takes nothing (no effect under any rights)."""
    return [{"patch": 0, "harvest": 0} for _ in range(n)]


class GreedyChildren:
    """One joint decision: each seat, in slot order, takes from the patch it may work that
    still wants the most fish."""

    def __init__(self, stepper: Stepper) -> None:
        self.n = stepper.n
        self.rights = stepper.config.property_rights

    def __call__(self, state: physics.HarvestState, r: int) -> list[list[Raw]]:
        need = {p: wanted(s) for p, s in enumerate(state.stocks) if not state.dead[p]}
        joint = pass_all(self.n)
        for slot in range(self.n):
            allowed = [p for p in need if self.rights == "open" or
                       slot in physics.holders(state, p)]
            if self.rights == "partnership":
                allowed = []  # handled per pair
            if not allowed:
                continue
            p = max(allowed, key=lambda q: (need[q], -q))
            take = min(EFFORT_BUDGET, need[p])
            need[p] -= take
            joint[slot] = {"patch": p, "harvest": take}
        return [joint]


class PairChildren:
    """Every decision of one partnership pair (which of its patches, how much); others pass."""

    def __init__(self, stepper: Stepper, members: list[int], patches: list[int]) -> None:
        self.n = stepper.n
        self.members = members
        self.patches = patches

    def __call__(self, state: physics.HarvestState, r: int) -> list[list[Raw]]:
        out = []
        live = [p for p in self.patches if not state.dead[p]] or self.patches[:1]
        cap = EFFORT_BUDGET * len(self.members)
        for p in live:
            for total in range(cap, -1, -1):
                if total == 0 and p != live[0]:
                    continue
                joint = pass_all(self.n)
                left = total
                for slot in self.members:
                    take = min(EFFORT_BUDGET, left)
                    left -= take
                    joint[slot] = {"patch": p, "harvest": take}
                out.append(joint)
        return out


def _disjoint_pairs(stepper: Stepper) -> list[tuple[list[int], list[int]]] | None:
    """(members, patches) per pair when no seat is in two pairs, else None."""
    pairs = stepper.setup.pairs
    seen: set[int] = set()
    out = []
    for k, pair in enumerate(pairs):
        members = sorted(set(pair))
        if seen & set(members):
            return None
        seen |= set(members)
        patches = [p for p in range(stepper.config.patch_count) if p // 2 == k]
        out.append((members, patches))
    return out


def plan(stepper: Stepper) -> tuple[SearchResult, str]:
    cfg = stepper.config
    rounds = stepper.rounds

    def b(state: Any, r: int) -> float:
        return bound(state, r, rounds)

    if enum.joint_count("harvest", cfg.patch_count, stepper.n) <= enum.MAX_JOINT:
        joint = enum.all_joint("harvest", cfg.patch_count, stepper.n)
        res = branch_and_bound(stepper, lambda s, r: joint, b, complete=True,
                               budget=SEARCH_BUDGET, key=_key)
        return res, "branch-and-bound over every joint decision"
    pairs = _disjoint_pairs(stepper) if cfg.property_rights == "partnership" else None
    if pairs is None:
        res = branch_and_bound(stepper, GreedyChildren(stepper), b, complete=False,
                               budget=SEARCH_BUDGET)
        return res, "greedy: every patch taken down to its best stock (10)"
    # A pair search counts every patch's final stock; the other pairs' patches, left alone,
    # end at their untouched stock in every search, so a pair's own value is the search's
    # figure less theirs. Pairs of the same shape (seats, patches) share one search.
    untouched = _untouched_end(stepper).stocks
    solved = _PAIR_MEMO.setdefault((rounds, stepper.n, cfg.patch_count), {})
    best = upper = 0.0
    merged = [pass_all(stepper.n) for _ in range(rounds)]
    finished, evaluations = True, 0
    for members, patches in pairs:
        others = sum(untouched) - sum(untouched[p] for p in patches)
        shape = (len(members), len(patches))
        if shape not in solved:
            solved[shape] = (_solve_pair(stepper, members, patches, others), members,
                             patches)
        res, m0, p0 = solved[shape]
        finished, evaluations = finished and res.finished, evaluations + res.evaluations
        others0 = sum(untouched) - sum(untouched[p] for p in p0)
        best += res.best - others0
        upper += res.upper_bound - others0
        for r in range(rounds):
            for slot0, slot in zip(m0, members, strict=True):
                d = res.plan[r][slot0]
                merged[r][slot] = {"patch": patches[p0.index(d["patch"])],
                                   "harvest": d["harvest"]}
    out = SearchResult(best, merged, upper, finished, evaluations)
    return out, "branch-and-bound per partnership pair over its two stocks"


def _solve_pair(stepper: Stepper, members: list[int], patches: list[int],
                others: float) -> SearchResult:
    """Branch and bound for one pair, bounded by the pair's grid DP (rounding stocks up)."""
    rounds = stepper.rounds
    table = pairgrid.pair_values(rounds, EFFORT_BUDGET * len(members), len(patches))

    def pair_bound(state: Any, r: int) -> float:
        idx = tuple(pairgrid.up(state.stocks[p]) for p in patches)
        return min(float(table[r][idx]) + others, bound(state, r, rounds))

    return branch_and_bound(stepper, PairChildren(stepper, members, patches), pair_bound,
                            complete=True, budget=PAIR_BUDGET, key=_key)


def _untouched_end(stepper: Stepper) -> physics.HarvestState:
    state: physics.HarvestState = stepper.initial()
    for r in range(stepper.rounds):
        state, _ = stepper.step(state, pass_all(stepper.n), r)
    return state
