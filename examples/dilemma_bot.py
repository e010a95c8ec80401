"""A Prisoner's Dilemma table bot: tit for tat with a promise, in a dozen lines.

Run it against a server (the README's "Your first bot", docs/tables.md):

    cogleague bot run examples/dilemma_bot.py:PromiseKeeper --server URL --key KEY --table ID
"""

from __future__ import annotations

from typing import Any

from cogleague.client import Bot, TurnInfo


class PromiseKeeper(Bot):
    """Promise to cooperate, keep the promise, and copy whatever the opponent did last."""

    name = "promise-keeper"
    game = "dilemma"  # only dilemma tables, and a league's dilemma games, seat it

    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        state = turn.visible_state
        opponent = state["opponent"]
        pairing = next(p for p in state["pairings"] if p["opponent"] == opponent)
        if pairing["history"] and pairing["history"][-1]["them"] == "D":
            return {"action": "defect"}
        return {"action": "cooperate", "message": "I will cooperate as long as you do."}
