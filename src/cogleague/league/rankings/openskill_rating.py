"""OpenSkill (Plackett–Luce) ratings across every stored episode, with their uncertainty.

Each episode is one free-for-all match: one team per distinct policy at the table (duplicates
share their policy's team, scored by their mean), ordered by score, ties kept as ties. Episodes
are fed in the store's deterministic order, so the same store always yields the same ratings.
The interval is mu ± 1.96 sigma; the ordinal (mu − 3 sigma) is the conservative skill.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

Z = 1.96


@dataclass(frozen=True)
class SkillRow:
    policy: str
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def low(self) -> float:
        return self.mu - Z * self.sigma

    @property
    def high(self) -> float:
        return self.mu + Z * self.sigma


def rate(episodes: Sequence[tuple[Sequence[str], Sequence[float]]]) -> list[SkillRow]:
    model = PlackettLuce()
    ratings = {}
    for policies, scores in episodes:
        by_policy: dict[str, list[float]] = {}
        for p, s in zip(policies, scores, strict=True):
            by_policy.setdefault(p, []).append(float(s))
        if len(by_policy) < 2:
            continue  # one policy alone at the table: no information on relative skill
        names = sorted(by_policy)
        for p in names:
            if p not in ratings:
                ratings[p] = model.rating(name=p)
        teams = [[ratings[p]] for p in names]
        means = [sum(by_policy[p]) / len(by_policy[p]) for p in names]
        for p, (new,) in zip(names, model.rate(teams, scores=means), strict=True):
            ratings[p] = new
    return [SkillRow(p, r.mu, r.sigma) for p, r in sorted(ratings.items())]
