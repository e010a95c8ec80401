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
_MATCH = np.array(MATCHINGS, dtype=np.int64).transpose(1, 2, 0).copy()
"""(4, 2, 7): the positions of each matching's meetings, matching last (meeting-major rows)."""


class _Stream:
    """B streams' draws held draw-major as `random()`'s integers k (float64, exact below
    2**53), each table at its own flat read position `pos` (draw index · B + table). `depth`
    draws are read up front; a table that reads past them (a rare run of pass redraws: its
    reads are clipped, harmless) is marked `short` and drawn again by the rules engine's own
    `draw_schedule`."""

    def __init__(self, seeds: Sequence[int], depth: int) -> None:
        names = [f"ledger:{s}:schedule" for s in seeds]
        b = len(names)
        if 2 * depth <= mt19937.WORDS:  # a stream's first twist: seeded in arrays
            k = mt19937.ints_by_draw(names, depth)
        else:
            k = stream_ints(names, depth).T
        self.k = k.astype(np.float64).reshape(-1)
        self.b = b
        self.depth = depth
        self.rows = np.arange(b)
        self.pos = self.rows.copy()

    @property
    def short(self) -> Array:
        return self.pos >= (self.depth + 1) * self.b

    def below(self, n: int) -> Array:
        """`rng.below(n)` (``int(random() * n)``) at every table."""
        values = self._below(n, self.pos)
        self.pos += self.b
        return values

    def _below(self, n: int, pos: Array) -> Array:
        # k / 2**53 and n / 2**53 are exact, so k · (n / 2**53) rounds the same exact product
        # once, as random() * n does; truncation is the floor of these non-negative values
        return (self.k.take(pos, mode="clip") * (n / TWO_53)).astype(np.int64)

    def coin(self, active: Array) -> Array:
        """`rng.coin` (``random() < 0.5``: k below 2**52) drawn by the active tables (its value
        elsewhere is not a draw)."""
        heads = self.k.take(self.pos, mode="clip") < 2.0**52
        self.pos += self.b * active
        return heads

    def shuffle(self, items: Array, rows: Array | None = None) -> Array:
        """`rng.shuffle` of each row of `items` (B, L), or of the tables `rows` (len(rows), L)
        only (the others read nothing)."""
        out = items.copy()
        m, length = out.shape
        flat = out.reshape(-1)
        starts = np.arange(m) * length
        pos = self.pos if rows is None else self.pos[rows]  # all tables: moved in place
        for i in range(length - 1, 0, -1):
            j = starts + self._below(i + 1, pos)
            pos += self.b
            at_i = starts + i
            a, b = flat.take(at_i), flat.take(j)
            flat[at_i] = b
            flat[j] = a
        if rows is not None:
            self.pos[rows] = pos
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
    """(a, b, subgame), each (B, rounds, 4) int8: the first mover (the lower seat in DILEMMA), the
    second, and the subgame index of every meeting.

    A round's four meetings have distinct seats, so their first-mover counts are read once
    at the round's start; only the stream position runs through them in order (a meeting
    draws its subgame, then a coin on a tie outside DILEMMA)."""
    n = len(seeds)
    st = _Stream(seeds, draws_read(rounds))
    rows = st.rows
    at8 = rows * POSITIONS  # flat row starts of (B, 8) arrays
    perm = st.shuffle(np.tile(np.arange(POSITIONS), (n, 1))).reshape(-1)
    counts = np.zeros(n * POSITIONS, dtype=np.int64)
    # round-major while drawn (a round's rows contiguous), returned table-major
    a_out = np.zeros((rounds, PAIRS_PER_ROUND, n), dtype=np.int8)
    b_out = np.zeros_like(a_out)
    g_out = np.zeros_like(a_out)
    draw = np.zeros((PAIRS_PER_ROUND, n), dtype=np.int64)  # meeting-major: rows contiguous
    swap = np.zeros((PAIRS_PER_ROUND, n), dtype=bool)
    previous_last: Array | None = None
    r = 0
    while r < rounds:
        order = st.shuffle(np.tile(np.arange(PASS_LENGTH), (n, 1)))
        if previous_last is not None:
            for _ in range(RESHUFFLES):  # only the tables that redraw read their stream
                again = np.flatnonzero(order[:, 0] == previous_last)
                if not again.size:
                    break
                order[again] = st.shuffle(np.tile(np.arange(PASS_LENGTH), (again.size, 1)),
                                          again)
            stuck = order[:, 0] == previous_last
            first, second = order[:, 0].copy(), order[:, 1].copy()
            order[:, 0] = np.where(stuck, second, first)
            order[:, 1] = np.where(stuck, first, second)
        previous_last = order[:, -1].copy()
        for pos in range(min(PASS_LENGTH, rounds - r)):
            match = _MATCH[:, :, order[:, pos]]  # (4, 2, B) positions
            f = perm.take(at8 + match[:, 0])  # (4, B) seats
            s = perm.take(at8 + match[:, 1])
            at_f, at_s = at8 + f, at8 + s
            cf, cs = counts.take(at_f), counts.take(at_s)
            level, behind = cf == cs, cs < cf
            for i in range(PAIRS_PER_ROUND):
                d = st.below(DRAW_SCALE)
                outside = d >= DILEMMA_BELOW
                tie = outside & level[i]
                swap[i] = outside & (behind[i] | (tie & st.coin(tie)))
                draw[i] = d
            dil = draw < DILEMMA_BELOW
            counts[np.where(swap, at_s, at_f)] += ~dil  # a round's seats are distinct
            low = f > s
            a_out[r] = np.where(swap | (dil & low), s, f)  # DILEMMA: the lower seat first
            b_out[r] = np.where(swap | (dil & low), f, s)
            g_out[r] = ~dil  # DILEMMA 0, TRUST 1, ULTIMATUM 2
            g_out[r] += draw >= TRUST_BELOW
            r += 1
    a_t, b_t, g_t = (x.transpose(2, 0, 1) for x in (a_out, b_out, g_out))
    for row in np.flatnonzero(st.short):  # drawn past what was read: the rules engine's draw
        for rr, pairs in enumerate(draw_schedule(int(seeds[int(row)]), rounds)):
            for j, p in enumerate(pairs):
                a_t[row, rr, j], b_t[row, rr, j] = p.a, p.b
                g_t[row, rr, j] = SUBGAMES.index(p.subgame)
    return a_t, b_t, g_t
