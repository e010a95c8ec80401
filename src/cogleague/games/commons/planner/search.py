"""Depth-first branch and bound over whole rounds, driven by the real physics.

A module planner supplies, for a state before round r, the joint decisions worth trying
(`children`, best guess first) and an admissible `bound`: a number no less than the gains of
rounds r.. plus the final residual that *any* play from that state can reach. The search keeps
the best complete plan found (the incumbent) and skips every branch whose bound cannot beat
it. When `children` lists every decision up to a proven dominance (``complete``) and the
search ends within its work budget, the incumbent is optimal: the upper bound is the
incumbent itself. Otherwise the bound is the largest bound left unexplored (or the root
bound), so `upper_bound` is always valid.

Work is counted in child evaluations, never in seconds, so a plan is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cogleague.games.commons.planner.stepper import Raw, Stepper

TOLERANCE = 1e-9
"""Branches that cannot beat the incumbent by more than this are skipped (float noise)."""

Children = Callable[[Any, int], Sequence[list[Raw]]]
Bound = Callable[[Any, int], float]
Key = Callable[[Any], Hashable]


@dataclass
class SearchResult:
    best: float
    plan: list[list[Raw]]
    upper_bound: float
    finished: bool
    evaluations: int
    notes: dict[str, Any] = field(default_factory=dict)


class _Budget(Exception):
    """The work budget ran out."""


def branch_and_bound(stepper: Stepper, children: Children, bound: Bound, *,
                     complete: bool, budget: int, key: Key | None = None,
                     incumbent: tuple[float, list[list[Raw]]] | None = None) -> SearchResult:
    """Maximise Σ gains + final residual over plans; see the module docstring.

    `key`, when given, identifies states with the same future (same round): a state reached
    again with no more banked gains is not searched twice. `incumbent` seeds the search with a
    known plan (its welfare must be exact)."""
    rounds = stepper.rounds
    root = stepper.initial()
    root_bound = bound(root, 0)
    best_value: float = float("-inf") if incumbent is None else incumbent[0]
    best_plan: list[list[Raw]] = [] if incumbent is None else incumbent[1]
    seen: dict[tuple[int, Hashable], float] = {}
    evaluations = 0
    open_max = float("-inf")
    path: list[list[Raw]] = []

    def visit(state: Any, r: int, banked: float) -> None:
        nonlocal evaluations, open_max, best_value, best_plan
        if r == rounds:
            total = banked + stepper.residual(state)
            if total > best_value:
                best_value, best_plan = total, [list(j) for j in path]
            return
        if key is not None:
            k = (r, key(state))
            prior = seen.get(k)
            if prior is not None and banked <= prior + TOLERANCE:
                return
            seen[k] = banked
        scored = []
        for i, joint in enumerate(children(state, r)):
            if evaluations >= budget:
                # what is left of this node is unexplored: its bound stays open
                open_max = max(open_max, banked + bound(state, r))
                raise _Budget
            evaluations += 1
            nxt, gain = stepper.step(state, joint, r)
            ub = banked + gain + (stepper.residual(nxt) if r + 1 == rounds
                                  else bound(nxt, r + 1))
            scored.append((-ub, i, joint, nxt, gain))
        scored.sort(key=lambda x: (x[0], x[1]))
        for neg_ub, _, joint, nxt, gain in scored:
            if -neg_ub <= best_value + TOLERANCE:
                break
            path.append(joint)
            try:
                visit(nxt, r + 1, banked + gain)
            except _Budget:
                open_max = max(open_max, -neg_ub)
                raise
            finally:
                path.pop()

    finished = True
    try:
        visit(root, 0, 0.0)
    except _Budget:
        finished = False
    if complete and finished:
        upper = best_value
    elif complete:
        upper = min(root_bound, max(best_value, open_max))
    else:
        upper = root_bound
    return SearchResult(best_value, best_plan, max(upper, best_value), finished, evaluations)
