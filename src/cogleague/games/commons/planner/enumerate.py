"""Every joint decision of a small config, for an exhaustive (complete) search.

Used when a round's distinct joint decisions are few (tiny configs, e.g. 2 seats): the
planner then searches all of them and its result is exact by construction. Decisions that
clamp to the same move are listed once.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from cogleague.games.commons.modules.common import COLORS, EFFORT_BUDGET
from cogleague.games.commons.planner.stepper import Raw

MAX_JOINT = 2500
"""Above this many joint decisions per round, a module uses its own reduced candidates."""

UNITS = range(EFFORT_BUDGET + 1)


def seat_options(module: str, patch_count: int) -> list[Raw]:
    """One seat's distinct legal decisions in `module` (rules §5, no sanction or chat)."""
    if module == "cleanup":
        return [{"harvest": h, "clean": c} for h in UNITS for c in range(EFFORT_BUDGET + 1 - h)]
    if module == "harvest":
        return [{"patch": p, "harvest": h} for p in range(patch_count) for h in UNITS]
    if module == "mushrooms":
        return [{"eat": 0, "eat_color": COLORS[0]}] + [
            {"eat": e, "eat_color": c} for e in UNITS[1:] for c in COLORS]
    out: list[Raw] = []
    for e in UNITS:
        for ec in COLORS if e else COLORS[:1]:
            for p in range(EFFORT_BUDGET + 1 - e):
                for pc in COLORS if p else COLORS[:1]:
                    out.append({"eat": e, "eat_color": ec, "plant": p, "plant_color": pc})
    return out


def joint_count(module: str, patch_count: int, n: int) -> int:
    return int(len(seat_options(module, patch_count)) ** n)


def all_joint(module: str, patch_count: int, n: int) -> list[list[Raw]]:
    opts: Sequence[Raw] = seat_options(module, patch_count)
    return [list(j) for j in itertools.product(opts, repeat=n)]
