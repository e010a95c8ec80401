"""The §5 schedule drawn for B seeds at once, equal to `schedule.draw_schedule` seed by seed.

Each table reads its own ``ledger:{seed}:schedule`` stream (every table's generator seeded and
drawn in arrays by `core.mt19937`) and keeps a pointer into it, which moves only where that
table draws: the coin on a first-mover tie and the redraws of a pass order are drawn by the
tables that need them and no others, so every table consumes its stream exactly as the rules
engine does.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import NamedTuple

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
            # random()'s k = (a >> 5) · 2**26 + (b >> 6) of two words, straight to float64
            # (exact below 2**53)
            w = mt19937.words_by_draw(names, 2 * depth).reshape(depth, 2, b)
            k = np.multiply(w[:, 0] >> 5, float(2**26))
            k += w[:, 1] >> 6
        else:
            k = stream_ints(names, depth).T.astype(np.float64)
        self.k = k.reshape(-1)
        self.b = b
        self.depth = depth
        self.rows = np.arange(b)
        self.pos = self.rows.copy()

    @property
    def short(self) -> Array:
        return self.pos >= (self.depth + 1) * self.b

    def read(self, out: Array) -> Array:
        """Every table's next k (float64) into `out`, read."""
        self.k.take(self.pos, out=out, mode="clip")
        self.pos += self.b
        return out

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

    def shuffled(self, length: int, rows: Array | None = None) -> Array:
        """`rng.shuffle` of ``range(length)`` at every table (B, length), or at the tables
        `rows` only (the others read nothing): the shuffle's draws, read at once, name its
        permutation in the factorial number system (`_permutations`)."""
        pos = self.pos if rows is None else self.pos[rows]
        steps = length - 1
        k = self.k.take(pos + (np.arange(steps) * self.b)[:, None], mode="clip")
        k *= (np.arange(length, 1, -1) / TWO_53)[:, None]  # draw t is below(length - t)
        np.floor(k, out=k)
        k *= _FACTORIALS[length - 1:0:-1, None]  # exact: whole numbers below 2**53
        code = k.sum(axis=0).astype(np.int64)
        if rows is None:
            self.pos += steps * self.b
        else:
            self.pos[rows] += steps * self.b
        return _permutations(length).take(code, axis=0)


@lru_cache(maxsize=4)
def _permutations(length: int) -> Array:
    """(length!, length) int8: row ``sum(j_i * i!)`` is ``range(length)`` after `rng.shuffle`'s
    swaps of position i with j_i, i from the top."""
    codes = np.arange(math.factorial(length))
    out = np.tile(np.arange(length, dtype=np.int8), (codes.size, 1))
    for i in range(length - 1, 0, -1):
        j = codes // math.factorial(i) % (i + 1)
        at_i, at_j = out[codes, i], out[codes, j]
        out[codes, i], out[codes, j] = at_j, at_i
    out.flags.writeable = False
    return out


_FACTORIALS = np.array([math.factorial(i) for i in range(POSITIONS)], dtype=np.int64)


TYPICAL_REDRAWS = 1
"""Pass redraws read up front a pass (each pass after the first redraws with probability
1/7)."""
TYPICAL_COINS = 2
"""First-mover coins read up front a round, of four meetings (a coin is tossed outside
DILEMMA, half of them, on a tie of first-mover counts)."""


def least_k(n: int, at_least: int) -> float:
    """The least k with ``int(k / 2**53 * n) >= at_least``, as `random() * n` rounds: a
    subgame draw compares k with these instead of multiplying (the product rounds up to the
    next integer for a few k below the exact bound)."""
    lo, hi = 0, TWO_53  # the answer is in lo..hi
    while lo < hi:
        mid = (lo + hi) // 2
        if float(mid) * (n / TWO_53) >= at_least:
            hi = mid
        else:
            lo = mid + 1
    return float(lo)


OUTSIDE_K = least_k(DRAW_SCALE, DILEMMA_BELOW)
"""A subgame draw's k from here on: not DILEMMA."""
ULTIMATUM_K = least_k(DRAW_SCALE, TRUST_BELOW)
"""… and from here on: ULTIMATUM."""


def draws_read(rounds: int) -> int:
    """Draws read up front per table: `TYPICAL_REDRAWS` and `TYPICAL_COINS` cover all but
    about one table in 5,000 at 14 rounds (a table's whole stream is read in one bulk pass,
    whose cost grows with the draws read; the rest are redrawn one by one)."""
    passes = math.ceil(rounds / PASS_LENGTH)
    return ((POSITIONS - 1) + passes * (PASS_LENGTH - 1) * (1 + TYPICAL_REDRAWS)
            + rounds * (PAIRS_PER_ROUND + TYPICAL_COINS))


def seat_schedule(seeds: Sequence[int], rounds: int) -> tuple[Array, Array, Array]:
    """Every table's schedule seat by seat: (partner, subgame, side), each (B, rounds, 8)
    int8, side 0 for the first mover (the lower seat in DILEMMA). Round-major underneath (a
    round of every table is one contiguous block, as the kernel reads it), each round
    scattered while it is drawn: one byte a seat, ``partner | subgame << 3 | side << 5``,
    split in bulk at the end."""
    n = len(seeds)
    st = _Stream(seeds, draws_read(rounds))
    code = np.empty((rounds, n * POSITIONS), dtype=np.int8)
    for r, m in enumerate(_rounds(st, rounds)):
        c_r = code[r]
        both = m.g << 3  # subgame, and side 1 for the first seat when it moves second
        side_f = m.swapped.view(np.int8) << 5
        c_r[m.at_f] = both + side_f + m.s
        both += 32
        both -= side_f
        both += m.f
        c_r[m.at_s] = both
    partner, subgame, side = code & 7, code >> 3, code >> 5
    subgame &= 3
    for row in np.flatnonzero(st.short):  # drawn past what was read: the rules engine's draw
        for rr, pairs in enumerate(draw_schedule(int(seeds[int(row)]), rounds)):
            for p in pairs:
                a, b = int(row) * POSITIONS + p.a, int(row) * POSITIONS + p.b
                partner[rr, a], partner[rr, b] = p.b, p.a
                subgame[rr, a] = subgame[rr, b] = SUBGAMES.index(p.subgame)
                side[rr, a], side[rr, b] = 0, 1
    return tuple(x.reshape(rounds, n, POSITIONS).transpose(1, 0, 2)  # type: ignore[return-value]
                 for x in (partner, subgame, side))


class _Meetings(NamedTuple):
    """A round's four meetings at every table, (4, B) each."""

    f: Array  # int8 the matching's first seat
    s: Array  # int8 its second
    at_f: Array  # int64 their flat indices in a (B, 8)
    at_s: Array
    swapped: Array  # bool the second seat moves first
    g: Array  # int8 subgame


def _rounds(st: _Stream, rounds: int) -> Iterator[_Meetings]:
    """Every round's meetings, in order, drawn from the tables' streams.

    A round's four meetings have distinct seats, so their first-mover counts are read once
    at the round's start; only the stream position runs through them in order (a meeting
    draws its subgame, then a coin on a tie outside DILEMMA)."""
    n = st.b
    rows = st.rows
    at8 = rows * POSITIONS  # flat row starts of (B, 8) arrays
    perm = st.shuffled(POSITIONS).reshape(-1)
    # every matching's seats at every table, (B, matching, meeting, first/second) flat: a
    # round reads its matching's eight at each table, near each other
    seats = perm.take(at8[:, None] + _MATCH.transpose(2, 0, 1).reshape(1, -1)).reshape(-1)
    at56 = rows * (PASS_LENGTH * POSITIONS)
    meeting_at = np.arange(PAIRS_PER_ROUND)[:, None] * 2
    counts = np.zeros(n * POSITIONS, dtype=np.int8)  # first moves outside DILEMMA, <= 28
    draw = np.zeros((PAIRS_PER_ROUND, n))  # subgame draws' k, meeting-major
    swap = np.zeros((PAIRS_PER_ROUND, n), dtype=bool)
    previous_last: Array | None = None
    r = 0
    while r < rounds:
        order = st.shuffled(PASS_LENGTH).astype(np.int64)
        if previous_last is not None:
            for _ in range(RESHUFFLES):  # only the tables that redraw read their stream
                again = np.flatnonzero(order[:, 0] == previous_last)
                if not again.size:
                    break
                order[again] = st.shuffled(PASS_LENGTH, again)
            stuck = order[:, 0] == previous_last
            first, second = order[:, 0].copy(), order[:, 1].copy()
            order[:, 0] = np.where(stuck, second, first)
            order[:, 1] = np.where(stuck, first, second)
        previous_last = order[:, -1].copy()
        for pos in range(min(PASS_LENGTH, rounds - r)):
            at_m = order[:, pos] * POSITIONS
            at_m += at56
            at_m = at_m + meeting_at
            f = seats.take(at_m)  # (4, B) seats
            at_m += 1
            s = seats.take(at_m)
            at_f, at_s = at8 + f, at8 + s
            cf, cs = counts.take(at_f), counts.take(at_s)
            level, behind = cf == cs, cs < cf
            for i in range(PAIRS_PER_ROUND):
                outside = st.read(draw[i]) >= OUTSIDE_K
                tie = outside & level[i]
                heads = st.coin(tie)
                heads &= tie
                np.logical_and(outside, behind[i], out=swap[i])
                swap[i] |= heads
            dil = draw < OUTSIDE_K
            # selections by arithmetic: numpy's `where` branches on a mask like this one
            at_first = at_s - at_f
            at_first *= swap
            at_first += at_f
            counts[at_first] += (~dil).view(np.int8)  # a round's seats are distinct
            low = f > s
            low &= dil
            low |= swap  # the second seat moves first (DILEMMA: the lower seat first)
            g = (~dil).view(np.int8) + (draw >= ULTIMATUM_K)  # DILEMMA 0, TRUST 1, ULTIMATUM 2
            yield _Meetings(f, s, at_f, at_s, low, g)
            r += 1
