"""Rules §4 steps 4 and 6, the institutions around the resource: chat and sanctions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cogleague.games.commons.books import SEAT_EVENT_PRIVATE
from cogleague.games.commons.config import CommonsConfig
from cogleague.games.commons.round_events import EventSpec


def chat(r: int, aliases: Sequence[str], moves: Sequence[Mapping[str, Any]],
         events: list[EventSpec]) -> list[dict[str, str]]:
    """Step 4: this round's lines, sorted by alias (shown next round)."""
    said = [(aliases[s], s, m["message"]) for s, m in enumerate(moves)
            if m["message"] is not None]
    if not said:
        return []
    said.sort()
    for alias, s, text in said:
        events.append(("chat", {"r": r, "slot": s, "alias": alias, "text": text},
                       SEAT_EVENT_PRIVATE))
    return [{"alias": alias, "text": text} for alias, _, text in said]


def sanctions(cfg: CommonsConfig, r: int, aliases: Sequence[str], slot_of: Mapping[str, int],
              moves: Sequence[Mapping[str, Any]], scores: list[float],
              events: list[EventSpec]) -> tuple[list[int], list[int]]:
    """Step 6, ascending payer slot; over the receiving cap a sanction is void and free.
    Charges `scores` in place; returns what each slot gave and received."""
    n = len(moves)
    given = [0] * n
    received = [0] * n
    for s, m in enumerate(moves):
        target_alias = m["sanction"]
        if target_alias is None:
            continue
        t = slot_of[target_alias]
        if received[t] >= cfg.max_sanctions_received:
            events.append(("void", {"r": r, "slot": s, "alias": aliases[s],
                                    "cause": "sanction_cap", "target": target_alias},
                           SEAT_EVENT_PRIVATE))
            continue
        given[s] += 1
        received[t] += 1
        scores[s] -= cfg.sanction_cost
        scores[t] -= cfg.sanction_burn
        events.append(("sanction", {"r": r, "slot": s, "alias": aliases[s],
                                    "target": target_alias, "target_slot": t,
                                    "cost": cfg.sanction_cost, "burn": cfg.sanction_burn},
                       SEAT_EVENT_PRIVATE))
    return given, received
