"""The payoff matrix (seed: *Payoffs per round*) and competition ranking (spec §3)."""

from __future__ import annotations

from collections.abc import Sequence

from cogleague.games.dilemma.config import Payoffs

COOPERATE = "cooperate"
DEFECT = "defect"
ACTIONS = (COOPERATE, DEFECT)


def matrix(p: Payoffs) -> dict[tuple[bool, bool], tuple[int, int]]:
    """(I cooperate, they cooperate) → (my points, their points)."""
    return {
        (True, True): (p.reward, p.reward),
        (True, False): (p.sucker, p.temptation),
        (False, True): (p.temptation, p.sucker),
        (False, False): (p.punishment, p.punishment),
    }


def score(p: Payoffs, a_cooperates: bool, b_cooperates: bool) -> tuple[int, int]:
    """Points for one round of one pairing."""
    return matrix(p)[(a_cooperates, b_cooperates)]


def competition_ranks(points: Sequence[int]) -> list[int]:
    """Rank per seat, highest total first; equal totals share a rank (1, 1, 3)."""
    return [1 + sum(1 for q in points if q > p) for p in points]


def standing_order(points: Sequence[int]) -> list[int]:
    """Seats by points descending, ties by seat ascending (a stable sort in reverse keeps equal
    totals in seat order)."""
    return sorted(range(len(points)), key=points.__getitem__, reverse=True)


def standings(points: Sequence[int]) -> list[dict[str, int]]:
    """The seed's `standings` shape: `{seat, points}` in standing order."""
    return [{"seat": s, "points": points[s]} for s in standing_order(points)]


def ranked_standings(points: Sequence[int]) -> list[dict[str, int]]:
    """`{seat, points, rank}` in standing order, with competition ranks (1, 1, 3) assigned in
    one pass: a rank is one more than the number of seats strictly ahead."""
    out = []
    rank, last = 0, None
    for i, s in enumerate(standing_order(points)):
        p = points[s]
        if p != last:
            rank, last = i + 1, p
        out.append({"seat": s, "points": p, "rank": rank})
    return out
