"""Ledger bots that write notes about their last partner: honestly, or the opposite."""

from __future__ import annotations

from typing import Any

from cogleague.client.bot import Bot, TurnInfo
from cogleague.games.ledger.conduct import is_kind

FIRST_ROLES = ("EITHER", "INVESTOR", "PROPOSER")


def _partner_was_kind(entry: dict[str, Any]) -> bool:
    partner_side = 0 if entry["role"] == "EITHER" else (1 if entry["role"] in FIRST_ROLES
                                                         else 0)
    return is_kind(entry["subgame"], partner_side, int(entry["partnerMove"]))


class HonestNotes(Bot):
    honest = True

    def on_turn(self, turn: TurnInfo) -> Any:
        view = turn.visible_state
        legal = view["meeting"]["legal"]
        reply: dict[str, Any] = {"move": legal["max"] if view["meeting"]["subgame"] != "DILEMMA"
                                 else 0}
        history = view.get("history") or []
        if view.get("noteTarget") and history:
            kind = _partner_was_kind(history[-1])
            if not self.honest:
                kind = not kind
            reply["note"] = "kind and fair partner" if kind else "harsh and greedy partner"
        return reply


class LyingNotes(HonestNotes):
    honest = False
