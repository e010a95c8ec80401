"""Generous tit for tat: tit for tat that forgives a defection with probability
min(1 − (T−R)/(R−S), (R−P)/(T−P)) (Nowak & Sigmund), drawn from the seat's seeded stream.
The stream is consulted only when there is a defection to forgive."""

from __future__ import annotations

import random
from fractions import Fraction

from cogleague.core.game import Action
from cogleague.games.dilemma.baselines._base import Baseline, choose
from cogleague.games.dilemma.config import Payoffs
from cogleague.games.dilemma.state import TurnContext


def forgiveness(p: Payoffs) -> Fraction:
    """The exact probability: both terms are ratios of integer payoffs, and the draw is
    compared with the fraction itself (float terms could pick the wrong one at a tie)."""
    return min(1 - Fraction(p.temptation - p.reward, p.reward - p.sucker),
               Fraction(p.reward - p.punishment, p.temptation - p.punishment))


class GenerousTitForTat(Baseline):
    def __init__(self, rng: random.Random, payoffs: Payoffs) -> None:
        self.rng = rng
        self.forgive = forgiveness(payoffs)

    def decide(self, ctx: TurnContext) -> Action:
        theirs = ctx.theirs
        if not theirs or theirs[-1]:
            return choose(True)
        return choose(self.rng.random() < self.forgive)
