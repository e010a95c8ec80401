"""A scripted seat: a game's built-in baseline, answered synchronously in-process."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from cogleague.core.game import Action, Policy, Turn


class ScriptedSeat:
    """Wraps a `Policy`. `decide_now` lets the runner skip the event loop entirely when every
    seat of a step is scripted (the headless fast path)."""

    kind = "scripted"

    def __init__(self, policy: Policy, name: str) -> None:
        self.policy = policy
        self.name = name
        # The policy's own bound method: the runner calls it once per scripted decision, and a
        # forwarding method would add a Python frame to each.
        self.decide_now: Callable[[Turn], Action] = policy.act
        # The step-batch hook (`core/seat.py`, `AnswersSteps`), where the baseline has one.
        self.decide_step: Callable[[Sequence[Any]], list[Action]] | None = getattr(
            policy, "act_step", None)

    async def decide(self, turn: Turn, hint: str | None) -> Any:
        return self.policy.act(turn)
