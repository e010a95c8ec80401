"""Who plays whom next: the matchmaker's choice of one table's agents (pure, no I/O).

Fair share first: the table is anchored on the ready agent with the fewest tables so far
(the most uncertain rating among equals), and
each further seat goes to the agent with the lowest ``played − UNCERTAINTY_WEIGHT × pair
uncertainty``, where the pair uncertainty is the mean, over the agents already chosen, of
``sqrt(σ_a² + σ_b²) / (√2 σ₀)`` (1 for two fresh ratings, falling as ratings settle) — so
among agents with similar counts the pairs whose outcome is least known meet first, as
Arena-style boards sample. A table is anchored on an entrant, never a baseline (a table of
baselines alone measures nothing). The collusion guard refuses a second agent of one account
at a table (baselines, the operator's, are exempt). Ties break on the agent id, so the same
state always forms the same table.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

SIGMA0 = 25.0 / 3.0
"""OpenSkill's initial σ (μ₀ = 25)."""
UNCERTAINTY_WEIGHT = 1.0
"""How many tables of fair share one unit of pair uncertainty is worth."""



@dataclass
class Candidate:
    id: int
    account: int
    played: int
    sigma: float = SIGMA0
    free: int = 1
    baseline: bool = False


def _uncertainty(c: Candidate, chosen: Sequence[Candidate]) -> float:
    if not chosen:
        return 0.0
    total = sum(math.sqrt(c.sigma ** 2 + o.sigma ** 2) for o in chosen)
    return total / len(chosen) / (math.sqrt(2.0) * SIGMA0)


def order(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The scan order of `pick`: fewest tables first, then the most uncertain rating (the
    largest bonus within a count), then the id."""
    return sorted(candidates, key=_order_key)


FAIR_SHARE_SLACK = 1
"""An entrant is seated only while its table count is at most this far above the fewest
among the game's ready entrants, busy ones included: a slow agent is waited for, a little,
rather than left behind (baselines are exempt). A table anchored on a least-played entrant
that the ceiling leaves unfilled (the collusion guard can leave it no peer within reach) gives
the seats nobody within reach can take to entrants from further ahead, and only those: else it
could never catch up while the others play on, and more would run them ahead. Only while every
least-played entrant is free: a busy one would fall further behind the rest. The server's
matchmaker passes only the free entrants to `pick` once a game has been stuck `fill_after_s`,
for one table: the others pull ahead of a busy one a table per `fill_after_s` (and
variant)."""


def _order_key(c: Candidate) -> tuple[int, float, int]:
    return c.played, -c.sigma, c.id


def seated(candidates: list[Candidate], ids: set[int]) -> None:
    """The agents `ids` took a seat: one more table, one less free; `candidates` (in `order`)
    stay in order — they are taken out and put back by bisection, not re-sorted."""
    moved = [c for c in candidates if c.id in ids]
    if not moved:
        return
    candidates[:] = [c for c in candidates if c.id not in ids]
    for c in moved:
        c.played += 1
        c.free -= 1
        bisect.insort(candidates, c, key=_order_key)


def pick(candidates: Sequence[Candidate], seats: int, same_account: bool,
         fill: Sequence[Candidate] = (), ordered: bool = False) -> list[Candidate] | None:
    """`seats` distinct agents with free capacity for one table, or None when the guard and
    the capacities leave too few. `fill` (baselines over their cap) completes a table only
    after every ready agent was tried. `ordered`: `candidates` are already in `order`.

    The bonus grows with an agent's own σ, so within one table count the first eligible
    agent in `order` beats the rest of its count: one is weighed per count, and the scan
    stops at the first count too high for any bonus (the largest σ bounds it)."""
    pool = list(candidates) if ordered else order(candidates)
    # fair share holds even while the least-played are busy: nobody runs ahead of them
    least = min((c.played for c in pool if not c.baseline), default=0)
    chosen = _pick(pool, seats, same_account, fill, least, False)
    trailing = [c for c in pool if c.played == least and not c.baseline]
    if chosen is None and trailing and all(c.free > 0 for c in trailing):
        # then it anchors: never starved by the ceiling. Not while one of the least-played is
        # busy: the others would run past it; it is waited for (the server's matchmaker stops
        # waiting after `fill_after_s`, when it passes only the free entrants)
        chosen = _pick(pool, seats, same_account, fill, least, True)
    return chosen


def _pick(pool: list[Candidate], seats: int, same_account: bool, fill: Sequence[Candidate],
          least: int, lift: bool) -> list[Candidate] | None:
    """`pick` under the fair-share ceiling; `lift`: a seat after an anchor of the `least`
    count that nobody under the ceiling can take goes to an entrant over it (only such a seat:
    the others still go to those under it, baselines included)."""
    ceiling = least + FAIR_SHARE_SLACK
    bound = UNCERTAINTY_WEIGHT * max((c.sigma for c in pool), default=SIGMA0) / SIGMA0 + 1e-9
    chosen: list[Candidate] = []
    taken: set[int] = set()
    accounts: set[int] = set()
    while len(chosen) < seats:
        best = _best(pool, chosen, taken, accounts, same_account, ceiling, bound)
        if best is None and lift and chosen and chosen[0].played == least:
            best = _best(pool, chosen, taken, accounts, same_account, None, bound)
        if best is None:
            extra = [f for f in fill if f.id not in taken]
            if len(chosen) + len(extra) < seats or not chosen:
                return None
            chosen += extra[:seats - len(chosen)]
            break
        chosen.append(best)
        taken.add(best.id)
        if not best.baseline:
            accounts.add(best.account)
    return chosen


def _best(pool: list[Candidate], chosen: list[Candidate], taken: set[int], accounts: set[int],
          same_account: bool, ceiling: int | None, bound: float) -> Candidate | None:
    """The next seat's agent: the eligible one of lowest key (no `ceiling`: entrants over it
    are eligible too), or None."""
    best: Candidate | None = None
    best_key: tuple[float, int] | None = None
    weighed: int | None = None  # the count whose first eligible agent was weighed
    for c in pool:
        if c.played == weighed:
            continue
        if best_key is not None and c.played - bound > best_key[0]:
            break
        if c.free <= 0 or c.id in taken or (not same_account and not c.baseline
                                             and c.account in accounts):
            continue
        if not c.baseline and ceiling is not None and c.played > ceiling:
            continue
        if not chosen and c.baseline:
            continue  # the anchor is an entrant: no table of baselines alone
        weighed = c.played
        key = (c.played - UNCERTAINTY_WEIGHT * _uncertainty(c, chosen), c.id)
        if best_key is None or key < best_key:
            best, best_key = c, key
        if not chosen:
            break  # the anchor: fewest tables, then the most uncertain
    return best


def rotate_for_balance(lineup: Sequence[int], seat_counts: dict[tuple[int, int], int]
                       ) -> list[int]:
    """The cyclic rotation of `lineup` whose agents have sat least in their new seats (the
    balanced rotation of `league/seating.py`, one table at a time)."""
    n = len(lineup)
    best = list(lineup)
    best_cost: int | None = None
    for r in range(n):
        rotated = [lineup[(s + r) % n] for s in range(n)]
        cost = sum(seat_counts.get((a, s), 0) for s, a in enumerate(rotated))
        if best_cost is None or cost < best_cost:
            best, best_cost = rotated, cost
    for s, a in enumerate(best):
        seat_counts[(a, s)] = seat_counts.get((a, s), 0) + 1
    return best
