"""Scoring (spec §9): a seat scores the MEDIAN of its per-meeting payoffs, which a ring cannot
lift — with at most 2 of 14 meetings inside a ring, the median is set by meetings with strangers.
Mean and total are reported for the record only."""

from __future__ import annotations

from collections.abc import Sequence

STAT_DECIMALS = 4  # mean and halo are reported to 4 decimal places


def median(pays: Sequence[int]) -> float:
    """Middle value (odd count), mean of the two middles (even count), 0.0 with no meetings."""
    return median_of_sorted(sorted(pays))


def median_of_sorted(ordered: Sequence[int]) -> float:
    """`median` of payoffs already in order (spectator frames keep each seat's sorted)."""
    n = len(ordered)
    if n == 0:
        return 0.0
    mid = n // 2
    if n % 2:
        return float(ordered[mid])
    return (ordered[mid - 1] + ordered[mid]) / 2


def mean(pays: Sequence[int]) -> float:
    """The unrounded mean payoff (0.0 with no meetings)."""
    return sum(pays) / len(pays) if pays else 0.0
