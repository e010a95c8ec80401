"""The payoff matrix (seed: *Payoffs per round*) and competition ranking (spec §3)."""

from __future__ import annotations

from collections.abc import Sequence

from cogleague.games.dilemma.config import Payoffs

COOPERATE = "cooperate"
DEFECT = "defect"
ACTIONS = (COOPERATE, DEFECT)
LETTER = {COOPERATE: "C", DEFECT: "D"}  # how `history` rows write a choice


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


def standings(points: Sequence[int]) -> list[dict[str, int]]:
    """Seats by points descending, ties by seat ascending (the seed's `standings` shape)."""
    order = sorted(range(len(points)), key=lambda s: (-points[s], s))
    return [{"seat": s, "points": points[s]} for s in order]
