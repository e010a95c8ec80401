"""A Commons Family bot: take a modest share and put effort back into the commons.

    cogleague bot run examples/commons_bot.py:Steward --server URL --key KEY --table ID
"""

from __future__ import annotations

from typing import Any

from cogleague.client import Bot, TurnInfo


class Steward(Bot):
    """Harvest one unit a round and spend the rest of the effort budget on upkeep."""

    name = "steward"
    game = "commons"  # only commons tables, and a league's commons games, seat it

    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        obs = turn.visible_state
        module = obs["module"]
        reply: dict[str, Any] = {}
        if module == "cleanup":
            reply = {"harvest": 1, "clean": 2}
        elif module == "harvest":
            own = obs["module_state"].get("your_patches") or [0]
            reply = {"patch": own[0], "harvest": 1}
        elif module == "allelopathic":
            reply = {"eat": 1, "eat_color": "green", "plant": 2, "plant_color": "green"}
        else:  # mushrooms
            reply = {"eat": 1, "eat_color": "red"}
        if obs["round"] == 0 and obs.get("chat_max_chars"):
            reply["message"] = "Let us each take one and keep the commons alive."
        return reply
