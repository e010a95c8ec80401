"""What a league's model seats spent: tokens per policy and, with a price table, money.

Read from each stored episode's ``models`` section (`seats.llm.accounting`). Amounts are exact
decimals, written as strings in the standings document (``"0.0123"``); a model the price
table does not list shows tokens only (``cost: null``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from cogleague.league.episodes import EpisodeRecord
from cogleague.seats.llm.pricing import PriceTable, total

COUNTS = ("requests", "replayed", "input_tokens", "output_tokens")


def cost_section(episodes: Sequence[EpisodeRecord], prices: PriceTable | None,
                 names: dict[str, str] | None = None) -> dict[str, Any] | None:
    """Per policy and in total; None when no episode had a model seat. `names` masks
    held-out policies."""
    rows: dict[str, dict[str, Any]] = {}
    money: dict[str, list[Decimal | None]] = defaultdict(list)
    for ep in episodes:
        models = (ep.results or {}).get("models")
        if not models:
            continue
        for seat, policy in enumerate(ep.policies):
            model = models["model"][seat]
            if model is None:
                continue
            shown = (names or {}).get(policy, policy)
            row = rows.setdefault(shown, {"policy": shown, "model": model,
                                          **{k: 0 for k in COUNTS}})
            for k in COUNTS:
                row[k] += int((models.get(k) or [0] * len(ep.policies))[seat] or 0)
            if prices is not None:
                money[shown].append(prices.cost(model, int(models["input_tokens"][seat]),
                                                int(models["output_tokens"][seat])))
    if not rows:
        return None
    out = []
    for name in sorted(rows):
        row = rows[name]
        spent = total(money[name]) if prices is not None else None
        out.append({**row, "cost": None if spent is None else str(spent)})
    league_total = total([Decimal(r["cost"]) for r in out if r["cost"] is not None])
    return {"currency": prices.currency if prices is not None else None, "rows": out,
            "total_cost": None if league_total is None else str(league_total),
            "total_input_tokens": sum(r["input_tokens"] for r in out),
            "total_output_tokens": sum(r["output_tokens"] for r in out)}
