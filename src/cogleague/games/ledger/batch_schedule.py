"""The §5 schedule drawn for B seeds at once, equal to `schedule.draw_schedule` seed by seed.

Each table reads its own ``ledger:{seed}:schedule`` stream (every table's generator seeded and
drawn in arrays by `core.mt19937`) and keeps a pointer into it, which moves only where that
table draws: the coin on a first-mover tie and the redraws of a pass order are drawn by the
tables that need them and no others, so every table consumes its stream exactly as the rules
engine does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from cogleague.core import mt19937
from cogleague.core.batch import TWO_53, Array, stream_ints
from cogleague.games.ledger.schedule import (
    MATCHINGS,
    PAIRS_PER_ROUND,
    PASS_LENGTH,
    POSITIONS,
    RESHUFFLES,
    draw_schedule,
)
from cogleague.games.ledger.subgames import DILEMMA_BELOW, DRAW_SCALE, SUBGAMES, TRUST_BELOW

DILEMMA_I, TRUST_I, ULTIMATUM_I = 0, 1, 2  # subgame indices (`subgames.SUBGAMES` order)
_MATCH = np.array(MATCHINGS, dtype=np.int64)  # (7, 4, 2) positions of each matching


class _Stream:
    """B streams of uniforms with one read pointer each. `depth` draws are read up front; a
    table that needs more (a rare run of pass redraws) is marked `short` and drawn again by
    the rules engine's own `draw_schedule`."""

    def __init__(self, seeds: Sequence[int], depth: int) -> None:
        names = [f"ledger:{s}:schedule" for s in seeds]
        ints = (mt19937.stream_ints(names, depth) if 2 * depth <= mt19937.WORDS
                else stream_ints(names, depth))  # a stream's first twist: seeded in arrays
        self.u = (ints * (1.0 / TWO_53)).ravel()
        self.depth = depth
        self.ptr = np.zeros(len(seeds), dtype=np.int64)
        self.rows = np.arange(len(seeds))
        self.base = self.rows * depth  # row starts in the flat `u`

    @property
    def short(self) -> Array:
        return self.ptr > self.depth

    def _read(self) -> Array:
        return self.u[self.base + np.minimum(self.ptr, self.depth - 1)]

    def below(self, n: int, active: Array | None = None) -> Array:
        """`rng.below(n)` for every active table (inactive ones read nothing; 0 for them)."""
        values = np.floor(self._read() * n).astype(np.int64)
        if active is None:
            self.ptr += 1
            return values
        self.ptr += active
        return np.where(active, values, 0)

    def shuffle(self, items: Array, active: Array | None = None) -> Array:
        """`rng.shuffle` of each row of `items` (B, L) for the active tables."""
        out = items.copy()
        rows = self.rows
        for i in range(out.shape[1] - 1, 0, -1):
            j = self.below(i + 1, active)
            a, b = out[:, i].copy(), out[rows, j]
            if active is None:
                out[:, i], out[rows, j] = b, a
            else:
                out[:, i] = np.where(active, b, a)
                out[rows, j] = np.where(active, a, out[rows, j])
        return out


TYPICAL_REDRAWS = 2
"""Pass redraws read up front (each pass after the first redraws with probability 1/7, so
more than two in one pass happen about once in 343 passes; those tables are redrawn)."""


def draws_read(rounds: int) -> int:
    """Draws read up front per table: every coin, and `TYPICAL_REDRAWS` redraws a pass."""
    passes = math.ceil(rounds / PASS_LENGTH)
    return (POSITIONS - 1) + passes * ((PASS_LENGTH - 1) * (1 + TYPICAL_REDRAWS)
                                       + PASS_LENGTH * PAIRS_PER_ROUND * 2)


def batch_schedule(seeds: Sequence[int], rounds: int) -> tuple[Array, Array, Array]:
    """(a, b, subgame), each (B, rounds, 4): the first mover (the lower seat in DILEMMA), the
    second, and the subgame index of every meeting."""
    n = len(seeds)
    st = _Stream(seeds, draws_read(rounds))
    rows = st.rows
    perm = st.shuffle(np.tile(np.arange(POSITIONS), (n, 1)))
    counts = np.zeros((n, POSITIONS), dtype=np.int64)
    a_out = np.zeros((n, rounds, PAIRS_PER_ROUND), dtype=np.int64)
    b_out = np.zeros_like(a_out)
    g_out = np.zeros_like(a_out)
    previous_last: Array | None = None
    r = 0
    while r < rounds:
        order = st.shuffle(np.tile(np.arange(PASS_LENGTH), (n, 1)))
        if previous_last is not None:
            for _ in range(RESHUFFLES):
                again = order[:, 0] == previous_last
                if not again.any():
                    break
                fresh = st.shuffle(np.tile(np.arange(PASS_LENGTH), (n, 1)), again)
                order = np.where(again[:, None], fresh, order)
            stuck = order[:, 0] == previous_last
            first, second = order[:, 0].copy(), order[:, 1].copy()
            order[:, 0] = np.where(stuck, second, first)
            order[:, 1] = np.where(stuck, first, second)
        previous_last = order[:, -1].copy()
        for pos in range(min(PASS_LENGTH, rounds - r)):
            k = order[:, pos]
            for i in range(PAIRS_PER_ROUND):
                x, y = _MATCH[k, i, 0], _MATCH[k, i, 1]
                u = st.below(DRAW_SCALE)
                dil = u < DILEMMA_BELOW
                g = np.where(dil, DILEMMA_I, np.where(u < TRUST_BELOW, TRUST_I, ULTIMATUM_I))
                f, s = perm[rows, x], perm[rows, y]
                cf, cs = counts[rows, f], counts[rows, s]
                tie = ~dil & (cf == cs)
                coin = _coin(st, tie)
                swap = ~dil & ((cs < cf) | (tie & coin))
                first_m = np.where(swap, s, f)
                second_m = np.where(swap, f, s)
                counts[rows, first_m] += (~dil).astype(np.int64)
                a_out[:, r, i] = np.where(dil, np.minimum(f, s), first_m)
                b_out[:, r, i] = np.where(dil, np.maximum(f, s), second_m)
                g_out[:, r, i] = g
            r += 1
    for row in np.flatnonzero(st.short):  # drawn past what was read: the rules engine's draw
        for rr, pairs in enumerate(draw_schedule(int(seeds[int(row)]), rounds)):
            for j, p in enumerate(pairs):
                a_out[row, rr, j], b_out[row, rr, j] = p.a, p.b
                g_out[row, rr, j] = SUBGAMES.index(p.subgame)
    return a_out, b_out, g_out


def _coin(st: _Stream, active: Array) -> Array:
    """`rng.coin` (random() < 0.5) for the active tables; False for the others."""
    values = st._read() < 0.5
    st.ptr += active
    return active & values
