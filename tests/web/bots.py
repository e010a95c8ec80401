"""A test-only Ledger bot that plays fair and reviews every previous partner on the board, so
the replays the web tests watch have gossip cards."""

from __future__ import annotations

from typing import Any

from cogleague.client import Bot, TurnInfo

FAIR = {"EITHER": 0, "INVESTOR": 4, "TRUSTEE": 50, "PROPOSER": 6, "RESPONDER": 5}
FAIR_PAY = 6


class Gossip(Bot):
    name = "gossip"

    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        obs = turn.visible_state
        reply: dict[str, Any] = {"move": FAIR[obs["meeting"]["role"]]}
        target = obs.get("noteTarget")
        if target and obs["history"]:
            last = obs["history"][-1]
            verdict = "kept it fair" if last["pay"] >= FAIR_PAY else \
                f"left me {last['pay']} after {last['partnerMove']}"
            reply["note"] = f"{target} {verdict} in round {last['round'] + 1}."
        return reply


class Memoist(Bot):
    """Plays fair and writes a memo (its private scratchpad) every round."""

    name = "memoist"

    def on_turn(self, turn: TurnInfo) -> dict[str, Any]:
        obs = turn.visible_state
        return {"move": FAIR[obs["meeting"]["role"]],
                "memo": f"round {obs['round'] + 1}: met {obs['meeting'].get('partner', '?')}"}
