"""Percentile bootstrap intervals for a mean, resampling whole episodes.

The seeds rank by mean episode score; the interval says how far that mean could move had the
league drawn other episodes. Resampling is seeded, so the same store gives the same table.
Neither the mean nor the interval depends on the episodes' order (the mean is an exactly
rounded sum, the resampling draws from the sorted scores): two policies with the same scores
in another order are tied to the last bit and share a rank (`ranks.py`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

RESAMPLES = 2000
LEVEL = 0.95
MAX_DRAWS_PER_BATCH = 4_000_000
"""Resample in batches of at most this many draws, so memory stays flat for huge leagues."""


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float | None  # None with fewer than 2 observations: no honest interval exists
    high: float | None
    n: int


def mean_interval(values: Sequence[float], *, resamples: int = RESAMPLES, level: float = LEVEL,
                  seed: int = 0) -> Interval:
    """The mean of `values` with a percentile bootstrap interval at `level`."""
    data = np.sort(np.asarray(values, dtype=float))
    n = len(data)
    if n == 0:
        raise ValueError("mean_interval needs at least one value")
    mean = math.fsum(data.tolist()) / n
    if n < 2:
        return Interval(mean, None, None, n)
    rng = np.random.default_rng(seed)
    batch = max(1, MAX_DRAWS_PER_BATCH // n)
    means = np.empty(resamples)
    for start in range(0, resamples, batch):
        stop = min(resamples, start + batch)
        means[start:stop] = data[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(mean, float(low), float(high), n)
