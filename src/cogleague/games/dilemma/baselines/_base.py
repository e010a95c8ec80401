"""Shared bits of the built-in baselines: the two replies and the context accessor.

A baseline reads `turn.context` (a `TurnContext`: this pairing's revealed choices, whether it
moves first, the opponent's promise) and never builds the seat's full view.
"""

from __future__ import annotations

from typing import Any

from cogleague.core.game import Action, Turn
from cogleague.games.dilemma.payoffs import COOPERATE, DEFECT
from cogleague.games.dilemma.state import TurnContext

PROMISE = "I will cooperate."  # a promise under the keyword rule (promises.py)


def choose(coop: bool, message: str | None = None) -> Action:
    action: dict[str, Any] = {"action": COOPERATE if coop else DEFECT}
    if message is not None:
        action["message"] = message
    return action


def context(turn: Turn) -> TurnContext:
    ctx: TurnContext = turn.context
    return ctx
