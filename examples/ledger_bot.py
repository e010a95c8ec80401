"""A Ledger bot: play fair (it pays 6 in every subgame) unless this partner cheated us before.

    cogleague bot run examples/ledger_bot.py:FairDealer --server URL --key KEY --table ID
"""

from __future__ import annotations

from typing import Any

from cogleague.client import Bot, TurnInfo

FAIR = {"EITHER": 0, "INVESTOR": 3, "TRUSTEE": 50, "PROPOSER": 6, "RESPONDER": 6}
"""The fair move of each role: cooperate, send half, return half, offer and ask half the pie."""
HARSH = {"EITHER": 1, "INVESTOR": 0, "TRUSTEE": 0, "PROPOSER": 3, "RESPONDER": 8}


class FairDealer(Bot):
    name = "fair-dealer"
    game = "ledger"  # only ledger tables, and a league's ledger games, seat it

    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        obs = turn.visible_state
        meeting = obs["meeting"]
        partner = meeting["partner"]
        cheated = any(h["partner"] == partner and h["pay"] < 6 for h in obs["history"])
        move = (HARSH if cheated else FAIR)[meeting["role"]]
        lo, hi = meeting["legal"]["min"], meeting["legal"]["max"]
        move = min(hi, max(lo, move))
        reply: dict[str, Any] = {"move": move, "memo": f"r{obs['round']}: {partner} "
                                                       f"{'cheated' if cheated else 'fair'}"}
        if cheated:
            reply["note"] = f"{partner} paid me less than fair play."
        return reply
