"""95% intervals for traits: Wilson score for rates, normal approximation for means.

Wilson rather than the plain normal interval because batteries are small and rates are often
exactly 0 or 1 (tit for tat retaliates every time): Wilson stays inside [0, 1] and still has
width at the ends.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share `successes / n` (n > 0)."""
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float] | None:
    """mean ± z·s/√n, or None with fewer than two values."""
    if len(values) < 2:
        return None
    m = statistics.fmean(values)
    half = z * statistics.stdev(values) / math.sqrt(len(values))
    return m - half, m + half
