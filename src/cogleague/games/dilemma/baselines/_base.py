"""Shared bits of the built-in baselines: the replies, the context accessor and `Baseline`.

A baseline reads a `TurnContext` (this pairing's revealed choices, whether it moves first, the
opponent's promise) and never builds the seat's full view. Each one writes its rule once, in
`decide(context)`; `act` (one turn) and `act_step` (all of the seat's turns of a step, the
step-batch protocol of `core/game.py`) are that rule applied per turn, in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.payoffs import COOPERATE, DEFECT
from cogleague.games.dilemma.state import TurnContext

PROMISE = "I will cooperate."  # a promise under the keyword rule (promises.py)

COOPERATE_ACTION: Action = {"action": COOPERATE}
"""The shared bare replies of `decide`: never modified (`act` hands out copies)."""
DEFECT_ACTION: Action = {"action": DEFECT}


def choose(coop: bool, message: str | None = None) -> Action:
    """A reply: one of the shared bare replies, or a fresh one carrying a message."""
    if message is None:
        return COOPERATE_ACTION if coop else DEFECT_ACTION
    action: dict[str, Any] = {"action": COOPERATE if coop else DEFECT, "message": message}
    return action


def context(turn: Turn) -> TurnContext:
    ctx: TurnContext = turn.context
    return ctx


class Baseline:
    """A dilemma baseline: its rule is `decide`; `act` and `act_step` apply it."""

    def decide(self, ctx: TurnContext) -> Action:
        raise NotImplementedError

    def act(self, turn: Turn) -> Action:
        """One turn's reply (a copy: the per-turn path's decisions own their actions)."""
        return dict(self.decide(turn.context))

    def act_step(self, contexts: Sequence[TurnContext]) -> list[Action]:
        """All of this seat's turns of one step, in order: `decide` on each."""
        return list(map(self.decide, contexts))
