"""Bradley–Terry strengths from within-episode pairwise outcomes, with bootstrap intervals.

Every pair of seats held by two different policies in one episode is a match: the higher score
wins, equal scores count half a win each. Strengths maximize the likelihood with a
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
MAX_ITER = 100
TOLERANCE = 1e-9
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


def _log_likelihood(theta: np.ndarray, wins: np.ndarray, games: np.ndarray,
                    prior: float) -> float:
    diff = theta[:, None] - theta[None, :]
    pair = float((wins * -np.logaddexp(0.0, -diff)).sum())
    reference = prior * (theta - 2 * np.logaddexp(0.0, theta)).sum()
    return pair + float(reference)


def fit(wins: np.ndarray, prior: float = PRIOR) -> np.ndarray:
    """Log-strengths maximizing the BT likelihood of `wins` plus the prior (Newton's method on
    a strictly concave objective, with step halving), centred on the league's mean."""
    n = wins.shape[0]
    games = wins + wins.T
    theta = np.zeros(n)
    current = _log_likelihood(theta, wins, games, prior)
    for _ in range(MAX_ITER):
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))  # P(i beats j)
        q = 1.0 / (1.0 + np.exp(-theta))  # P(i beats the reference)
        grad = wins.sum(axis=1) - (games * p).sum(axis=1) + prior - 2 * prior * q
        curvature = games * p * (1 - p)
        hess = curvature.copy()
        np.fill_diagonal(hess, -(curvature.sum(axis=1) - np.diag(curvature))
                         - 2 * prior * q * (1 - q))
        step = np.linalg.solve(hess, grad)
        scale = 1.0
        while True:
            candidate = theta - scale * step
            value = _log_likelihood(candidate, wins, games, prior)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta, current = candidate, value
        if np.max(np.abs(scale * step)) < TOLERANCE:
            break
    return theta - theta.mean()  # centred: 0 is the average policy of this league


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
    if len(names) < 2:
        return BTResult(names, [0.0] * len(names), [None] * len(names), [None] * len(names), 0,
                        len(episodes))
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
