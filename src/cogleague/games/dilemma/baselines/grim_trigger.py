"""Grim trigger: cooperate until the opponent's first defection in this pairing, then defect."""

from __future__ import annotations

from cogleague.core.game import Action
from cogleague.games.dilemma.baselines._base import COOPERATE_ACTION, DEFECT_ACTION, Baseline
from cogleague.games.dilemma.state import TurnContext


class GrimTrigger(Baseline):
    """Remembers, per pairing, how much of the opponent's history it has read and whether that
    part held a defection: a history only ever grows, so each turn reads only the new choices
    instead of the whole history (which made a long match quadratic)."""

    def __init__(self) -> None:
        # id(history) → (the history itself, choices read, all of them cooperate)
        self._read: dict[int, tuple[list[bool], int, bool]] = {}

    def decide(self, ctx: TurnContext) -> Action:
        theirs = ctx.theirs
        seen = self._read.get(id(theirs))
        read, clean = (seen[1], seen[2]) if seen is not None and seen[0] is theirs else (0, True)
        n = len(theirs)
        if clean and read < n:
            clean = all(theirs[read:]) if n - read > 1 else theirs[read]
        self._read[id(theirs)] = (theirs, n, clean)
        return COOPERATE_ACTION if clean else DEFECT_ACTION
