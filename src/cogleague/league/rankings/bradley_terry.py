"""Bradley–Terry strengths from within-episode pairwise outcomes, with bootstrap intervals.

Every pair of seats held by two different policies in one episode is a match: the higher score
wins, equal scores count half a win each. Strengths are fitted by Hunter's MM algorithm with a
weak prior (each policy also draws `PRIOR` games against a reference player of strength 1), so
a policy that never lost still has a finite strength. Intervals resample whole episodes (the
pairs of one episode are not independent) and refit.

Reported strength is the natural log of the BT parameter, centred on the league's average: a
difference d between two policies means P(first beats second) = 1 / (1 + e^-d).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

PRIOR = 0.5
MAX_ITER = 2000
TOLERANCE = 1e-10
RESAMPLES = 400
LEVEL = 0.95


def episode_wins(policies: Sequence[str], scores: Sequence[float],
                 index: dict[str, int]) -> np.ndarray:
    """wins[i, j] = how often policy i beat policy j among this episode's seats (ties ½)."""
    n = len(index)
    wins = np.zeros((n, n))
    for a in range(len(policies)):
        for b in range(a + 1, len(policies)):
            pa, pb = index[policies[a]], index[policies[b]]
            if pa == pb:
                continue  # duplicates of one policy do not play themselves
            if scores[a] > scores[b]:
                wins[pa, pb] += 1
            elif scores[b] > scores[a]:
                wins[pb, pa] += 1
            else:
                wins[pa, pb] += 0.5
                wins[pb, pa] += 0.5
    return wins


def fit(wins: np.ndarray, prior: float = PRIOR) -> np.ndarray:
    """Log-strengths maximizing the BT likelihood of `wins` (plus the prior)."""
    n = wins.shape[0]
    games = wins + wins.T
    total_wins = wins.sum(axis=1) + prior
    p = np.ones(n)
    for _ in range(MAX_ITER):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1) + 2 * prior / (p + 1.0)
        new = total_wins / denom
        if np.max(np.abs(np.log(new) - np.log(p))) < TOLERANCE:
            p = new
            break
        p = new
    logs = np.log(p)
    return logs - logs.mean()  # centred: 0 is the average policy of this league


@dataclass(frozen=True)
class BTResult:
    policies: list[str]
    strength: list[float]
    low: list[float | None]
    high: list[float | None]
    matches: int  # pairwise outcomes used
    episodes: int


def rate(episodes: Sequence[tuple[Sequence[str], Sequence[float]]], *,
         resamples: int = RESAMPLES, level: float = LEVEL, seed: int = 0) -> BTResult:
    """Fit BT on `episodes` — (policies by seat, scores by seat) — with bootstrap intervals."""
    names = sorted({p for policies, _ in episodes for p in policies})
    index = {p: i for i, p in enumerate(names)}
    per_episode = np.stack([episode_wins(p, s, index) for p, s in episodes]) if episodes \
        else np.zeros((0, len(names), len(names)))
    total = per_episode.sum(axis=0) if len(episodes) else np.zeros((len(names), len(names)))
    strength = fit(total)
    matches = int(np.rint(total.sum()))
    if len(episodes) < 2:
        return BTResult(names, strength.tolist(), [None] * len(names), [None] * len(names),
                        matches, len(episodes))
    rng = np.random.default_rng(seed)
    draws = np.empty((resamples, len(names)))
    for b in range(resamples):
        counts = rng.multinomial(len(episodes), np.full(len(episodes), 1 / len(episodes)))
        draws[b] = fit(np.tensordot(counts, per_episode, axes=1))
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail], axis=0)
    return BTResult(names, strength.tolist(), low.tolist(), high.tolist(), matches,
                    len(episodes))
