"""An upper bound for one partnership pair: dynamic programming over its two stocks on a grid,
rounding every stock up.

Why rounding up is safe: a pair's best future value never falls when a stock rises. Play the
same decisions from the larger stock: a demand takes at least as much, and what is left
regrows to at least as much (`regrow` rises with the stock below capacity; the death latch
and the cap keep that order). So V(s) ≤ V(⌈s⌉) on the grid, and a DP that rounds every
next stock up to the grid computes values ≥ the true ones. The grid step divides 1, so a whole
harvest keeps a grid stock on the grid. Next stocks come from the module's own `dynamics` on a
one-patch state, never from a restated formula.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from cogleague.games.commons.modules import harvest as physics

STEPS_PER_FISH = 40
"""Grid step 1/40 fish: ≈ 641² states; the rounding costs at most a few tenths of welfare."""
TOP = int(physics.PATCH_CAPACITY * STEPS_PER_FISH)


@lru_cache(maxsize=4)
def _next_index() -> np.ndarray:
    """Grid index of a patch's stock after one round's dynamics, rounded up."""
    out = np.empty(TOP + 1, dtype=np.int64)
    for i in range(TOP + 1):
        state = physics.HarvestState([i / STEPS_PER_FISH], [False], [0], [[0, 0]])
        physics.dynamics(state, [], 0)
        out[i] = min(TOP, math.ceil(state.stocks[0] * STEPS_PER_FISH))
    # a dead patch (stock 0) stays at 0 and regrows nothing
    out[0] = 0
    return out


@lru_cache(maxsize=16)
def pair_values(rounds: int, cap: int, patches: int) -> tuple[np.ndarray, ...]:
    """values[t][i, j]: upper bound on a pair's gains from round t on plus its final stocks,
    from stocks (i, j)/STEPS (one patch: j unused). `cap` = fish the pair can take a round."""
    nxt = _next_index()
    g = TOP + 1
    idx = np.arange(g)
    stock = idx / STEPS_PER_FISH
    if patches == 1:
        v = stock.copy()
        values = [v]
        for _ in range(rounds):
            best = v[nxt]
            for h in range(1, cap + 1):
                left = idx - h * STEPS_PER_FISH
                took = np.where(left >= 0, float(h), stock)
                best = np.maximum(best, took + v[nxt[np.maximum(left, 0)]])
            v = best
            values.append(v)
        return tuple(reversed(values))
    v = stock[:, None] + stock[None, :]
    values = [v]
    for _ in range(rounds):
        rest = nxt
        best = v[np.ix_(rest, rest)]
        for h in range(1, cap + 1):
            left = idx - h * STEPS_PER_FISH
            took = np.where(left >= 0, float(h), stock)
            after = nxt[np.maximum(left, 0)]
            best = np.maximum(best, took[:, None] + v[np.ix_(after, rest)])
            best = np.maximum(best, took[None, :] + v[np.ix_(rest, after)])
        v = best
        values.append(v)
    return tuple(reversed(values))


def up(stock: float) -> int:
    return min(TOP, math.ceil(stock * STEPS_PER_FISH))
