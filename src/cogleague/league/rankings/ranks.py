"""Ranks that admit uncertainty.

Ties in the estimate share a rank (competition ranking: 1, 1, 3). Beside it, each row gets the
range of ranks its interval allows: best = 1 + the number of rows whose interval lies wholly
above this one; worst = the number of rows whose interval does not lie wholly below it. A rank
is *shown* only when that range is a single rank — the interval separates the row from every
other — otherwise the row is marked level (e.g. ``level 2–4``).

Numbers equal to the last few bits are equal here: Bradley–Terry is fitted by Newton's method,
so two policies with the same outcomes come out equal only up to rounding, which must neither
split their rank nor separate their (degenerate) intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

REL_TOL = 1e-9
ABS_TOL = 1e-12


def _above(a: float, b: float) -> bool:
    """``a > b`` beyond rounding."""
    return a > b and not math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


@dataclass(frozen=True)
class RankInfo:
    rank: int
    best: int
    worst: int

    @property
    def separated(self) -> bool:
        return self.best == self.worst

    @property
    def label(self) -> str:
        if self.separated:
            return str(self.rank)
        return f"level {self.best}–{self.worst}"


def rank_rows(estimates: Sequence[float], lows: Sequence[float | None],
              highs: Sequence[float | None]) -> list[RankInfo]:
    """Rank rows (higher estimate is better); a row without an interval is never separated."""
    n = len(estimates)
    out = []
    for i in range(n):
        rank = 1 + sum(1 for j in range(n) if _above(estimates[j], estimates[i]))
        lo, hi = lows[i], highs[i]
        if lo is None or hi is None:
            out.append(RankInfo(rank, 1, n))
            continue
        above = sum(1 for j, low in enumerate(lows)
                    if j != i and low is not None and _above(low, hi))
        below = sum(1 for j, high in enumerate(highs)
                    if j != i and high is not None and _above(lo, high))
        out.append(RankInfo(rank, 1 + above, n - below))
    return out


LEVEL_NOTE = ("level a–b: the policy's 95% interval overlaps those of the policies ranked a to "
              "b, so the episodes played cannot separate them; more episodes may.")
"""The footnote every standings table with a ``level`` rank carries (CLI, report, web)."""
RESAMPLES_MIN, RESAMPLES_MAX = 100, 100_000
"""Bootstrap resamples the standings' intervals take, from Python as from ``--resamples``: fewer
than 100 give no interval worth the name, more only take time. Here, not beside the bootstrap,
so the command line reads them without loading numpy."""
