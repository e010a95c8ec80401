"""§9's median scores for B tables at once, equal to `scoring.median` seat by seat.

A seat's record is at most a few dozen small payoffs: sorting each record with `np.sort` pays
a per-row cost that dominates (about 1 µs a table), while a sorting network over the records
laid round-major (one contiguous row of every seat's k-th payoff) is a few hundred
elementwise minimum/maximum passes over all seats together, whatever B is.
"""

from __future__ import annotations

import numpy as np

from cogleague.core.batch import Array
from cogleague.games.ledger.subgames import MAX_PAY

_UNPLAYED = MAX_PAY + 1
"""A round not yet played, above every payoff: it sorts after the rounds that were."""


def medians(pays: Array, t: Array) -> Array:
    """(B, S) float64: the median of each seat's first ``t[b]`` payoffs in `pays` (B, S, R)
    (0.0 with none), a middle value or the mean of the two middles as `scoring.median`."""
    b, s, r = pays.shape
    played = np.asarray(t, dtype=np.int64)
    if b == 0:
        return np.zeros((0, s))
    x = np.empty((r, b * s), dtype=np.int8)  # round-major: row k holds every seat's k-th
    x.reshape(r, b, s)[...] = np.moveaxis(np.asarray(pays), 2, 0)
    if bool((played < r).any()):
        x[np.arange(r)[:, None] >= np.repeat(played, s)[None, :]] = _UNPLAYED
    _sort_rows(x)
    n = int(played[0])
    if bool((played == n).all()):  # tables in step: two rows
        if n == 0:
            return np.zeros((b, s))
        lo, hi = x[(n - 1) // 2], x[n // 2]
    else:
        n_seat = np.repeat(played, s)
        seat = np.arange(b * s)
        lo = x[np.maximum(n_seat - 1, 0) // 2, seat]
        hi = x[np.minimum(n_seat // 2, r - 1), seat]
    out = (lo.astype(np.float64) + hi) / 2  # a middle value, or the two middles' mean
    if not bool(played.all()):
        out[np.repeat(played, s) == 0] = 0.0
    return out.reshape(b, s)


def _sort_rows(x: Array) -> None:
    """Sort every column of `x` (R, N) in place: odd–even transposition, R phases of
    compare-exchanges between neighbouring rows (R rows are sorted after R phases)."""
    r = x.shape[0]
    low = np.empty_like(x[0]) if r else x
    for phase in range(r):
        for i in range(phase % 2, r - 1, 2):
            a, b = x[i], x[i + 1]
            np.minimum(a, b, out=low)
            np.maximum(a, b, out=b)
            a[...] = low
