"""Ring detection (spec §10): measured and published, never scored.

A pair that met at least twice is flagged when their mutual meetings paid well (inMean ≥ 6)
and clearly better than their meetings with everyone else (delta ≥ 3). A ring is a connected
component of three or more seats in the flagged graph. Thresholds are compared exactly
(fractions), so float rounding never decides a flag.

The reported figures (delta to 0.1, the means to 4 decimal places) are rounded half up from the
exact fraction, as the original engine did and as the rules' other roundings go (TRUST's
returned coins, numeric replies): a delta of exactly 13/4 reads 3.3, never 3.2, whatever
its binary float would round to.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

MIN_MUTUAL_MEETINGS = 2
MIN_IN_MEAN = 6
MIN_DELTA = 3
MIN_RING_SIZE = 3
MEAN_DECIMALS = 4
DELTA_DECIMALS = 1


@dataclass(frozen=True)
class RingPair:
    a: int
    b: int
    in_mean: Fraction
    out_mean: Fraction

    @property
    def delta(self) -> Fraction:
        return self.in_mean - self.out_mean

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "inMean": half_up(self.in_mean, MEAN_DECIMALS),
                "outMean": half_up(self.out_mean, MEAN_DECIMALS),
                "delta": half_up(self.delta, DELTA_DECIMALS)}


def half_up(value: Fraction, decimals: int) -> float:
    """`value` to `decimals` places, a tie rounded away from zero, decided on the exact value
    (Python's `round` on a float rounds half even, on the float's binary value)."""
    scale = 10 ** decimals
    magnitude = math.floor(abs(value) * scale + Fraction(1, 2))
    return math.copysign(magnitude, value) / scale if magnitude else 0.0


@dataclass(frozen=True)
class Rings:
    pairs: list[RingPair] = field(default_factory=list)  # flagged pairs, a < b, sorted
    components: list[list[int]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"pairs": [p.to_json() for p in self.pairs],
                "components": [list(c) for c in self.components]}



@dataclass(slots=True)
class RingTally:
    """The sums ring detection reads, kept meeting by meeting: a table that is asked for its
    rings after every event (spectator frames) pays per pair that met, not per meeting so far.

    Per unordered pair (keyed a·seats + b with a < b, which sorts as (a, b) does): how often
    they met and the sum of both payoffs of those meetings; per seat, its payoffs' sum and count.
    """

    seats: int = 8
    met_by_pair: dict[int, int] = field(default_factory=dict)
    inside_by_pair: dict[int, int] = field(default_factory=dict)
    pay_sum: list[int] = field(init=False)
    pay_count: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.pay_sum = [0] * self.seats
        self.pay_count = [0] * self.seats

    def add(self, a: int, b: int, pay_a: int, pay_b: int) -> None:
        seats = self.seats
        key = a * seats + b if a < b else b * seats + a
        met_by_pair, inside_by_pair = self.met_by_pair, self.inside_by_pair
        met_by_pair[key] = met_by_pair.get(key, 0) + 1
        inside_by_pair[key] = inside_by_pair.get(key, 0) + pay_a + pay_b
        self.pay_sum[a] += pay_a
        self.pay_sum[b] += pay_b
        self.pay_count[a] += 1
        self.pay_count[b] += 1

    def rings(self) -> Rings:
        return _flag(self.seats, self.met_by_pair, self.inside_by_pair, self.pay_sum,
                     self.pay_count)


def detect_rings(meetings: Iterable[tuple[int, int, int, int]], seats: int = 8) -> Rings:
    """Flagged pairs and rings from meetings given as (a, b, pay_a, pay_b)."""
    tally = RingTally(seats)
    met_by_pair, inside_by_pair = tally.met_by_pair, tally.inside_by_pair
    pay_sum, pay_count = tally.pay_sum, tally.pay_count
    for a, b, pay_a, pay_b in meetings:  # `RingTally.add`, inlined for the batch kernel
        key = a * seats + b if a < b else b * seats + a
        met_by_pair[key] = met_by_pair.get(key, 0) + 1
        inside_by_pair[key] = inside_by_pair.get(key, 0) + pay_a + pay_b
        pay_sum[a] += pay_a
        pay_sum[b] += pay_b
        pay_count[a] += 1
        pay_count[b] += 1
    return tally.rings()


def may_flag(met: int, inside: int) -> bool:
    """Whether a pair that met `met` times for `inside` points between them can be flagged,
    whatever its seats' other meetings: enough mutual meetings and inMean >= 6 (in integers).
    Only its own meetings change that; its seats' other meetings change only its outMean."""
    return met >= MIN_MUTUAL_MEETINGS and inside >= MIN_IN_MEAN * 2 * met


def outpaces(met: int, inside: int, out_sum: int, out_count: int) -> bool:
    """Whether a pair's mutual meetings beat its seats' other meetings by delta >= 3, in
    integers: inMean = inside / (2·met), outMean = out_sum / out_count (0 with none)."""
    scale = out_count or 1  # no other meetings: outMean = 0 (and out_sum = 0)
    return inside * scale - 2 * met * out_sum >= MIN_DELTA * 2 * met * scale


def outpacing_line(met: int, inside: int) -> tuple[int, int, int]:
    """`outpaces` of a pair that may be flagged (`may_flag`), as a line in its seats' payoff
    counts and sums, for a check run after every meeting: with out_count = counts − 2·met and
    out_sum = sums − inside, it holds iff ``slope_c·counts − slope_s·sums >= bound`` for the
    returned (slope_c, slope_s, bound). (With no other meetings both sides are equal: flagged,
    as `outpaces` has it when inMean >= MIN_DELTA, which `may_flag` ensures.)"""
    slope_c = inside - MIN_DELTA * 2 * met
    slope_s = 2 * met
    return slope_c, slope_s, slope_c * 2 * met - slope_s * inside


def _flag(seats: int, met_by_pair: dict[int, int], inside_by_pair: dict[int, int],
          pay_sum: list[int], pay_count: list[int]) -> Rings:
    """The flagged pairs (exact threshold tests) and their rings, from a tally's sums."""
    flagged: list[RingPair] = []
    candidates = sorted([key for key, met in met_by_pair.items() if met >= MIN_MUTUAL_MEETINGS])
    for key in candidates:
        met = met_by_pair[key]
        a, b = divmod(key, seats)
        inside = inside_by_pair[key]  # inMean = inside / (2·met), the mean of (pay_a + pay_b) / 2
        out_count = pay_count[a] + pay_count[b] - 2 * met
        out_sum = pay_sum[a] + pay_sum[b] - inside
        # exact threshold tests in integers: inMean >= 6 and inMean - outMean >= 3
        if not may_flag(met, inside) or not outpaces(met, inside, out_sum, out_count):
            continue
        out_mean = Fraction(out_sum, out_count) if out_count else Fraction(0)
        flagged.append(RingPair(a, b, Fraction(inside, 2 * met), out_mean))
    return Rings(flagged, _components(flagged))


def _components(pairs: list[RingPair]) -> list[list[int]]:
    """Connected components of 3+ seats in the flagged graph, each sorted, sorted by content."""
    if len(pairs) < MIN_RING_SIZE - 1:  # too few edges to join that many seats
        return []
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for p in pairs:
        ra, rb = root(p.a), root(p.b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for seat in parent:
        groups.setdefault(root(seat), []).append(seat)
    return sorted(sorted(g) for g in groups.values() if len(g) >= MIN_RING_SIZE)
