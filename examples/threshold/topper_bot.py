"""A threshold-table bot: pledge the fair share, then give what the others' pledges leave short.

Remotely, against a server table of the threshold game:

    cogleague bot run examples/threshold/topper_bot.py:Topper --server URL --key KEY --table ID

or in-process, as a seat (`--seats examples/threshold/topper_bot.py:Topper,…`) or a league
policy (``bot = "examples/threshold/topper_bot.py:Topper"``).
"""

from __future__ import annotations

from cogleague.client import Bot, TurnInfo


class Topper(Bot):
    """Trusts pledges: tops the fund up to the threshold when it can, gives nothing otherwise."""

    name = "topper"
    game = "threshold"

    def on_turn(self, turn: TurnInfo) -> dict[str, int]:
        view = turn.visible_state
        (key,) = turn.legal_actions
        if key == "pledge":
            return {"pledge": view["fair_share"]}
        pledges = view["pledges"] or [view["fair_share"]] * len(view["aliases"])
        others = sum(pledges) - pledges[view["you"]]
        needed = max(0, view["threshold"] - others)
        return {"contribute": needed if needed <= view["endowment"] else 0}
