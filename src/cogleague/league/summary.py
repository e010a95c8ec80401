"""Text views of the standings' held-out comparison, model costs and fallbacks (`league
standings`, the report)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.markup import escape
from rich.table import Table


def two(value: float) -> str:
    """A number to two decimals, never ``-0.00`` (a centred strength of -1e-17 is 0)."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def _num(value: float | None) -> str:
    return "—" if value is None else two(value)


def held_out_tables(doc: dict[str, Any]) -> list[Table]:
    """Per game and variant: score vs the public pool and vs the held-out pool, side by side."""
    tables = []
    for table in doc["tables"]:
        section = table.get("held_out")
        if not section:
            continue
        t = Table(title=f"{table['game']} · {table['variant'] or 'default'} — public vs "
                        f"held-out opponents ({section['episodes']} evaluation episodes; "
                        "difference = held-out − public, 95% bootstrap interval)",
                  title_justify="left")
        for col in ("policy", "vs public", "games", "vs held-out", "games", "difference"):
            t.add_column(col, no_wrap=True)
        for r in section["rows"]:
            diff = _num(r["difference"])
            if r["low"] is not None:
                diff += f" [{r['low']:.2f}, {r['high']:.2f}]" + (" gap" if r["shows_gap"]
                                                                 else "")
            t.add_row(escape(r["policy"]), _num(r["vs_public"]), str(r["public_games"]),
                      _num(r["vs_held_out"]), str(r["held_out_games"]), diff)
        tables.append(t)
    return tables


def held_out_line(doc: dict[str, Any]) -> str | None:
    info = doc.get("held_out")
    if not info:
        return None
    state = "revealed" if info["revealed"] else "hidden until the season ends"
    return escape(f"held-out pool ({state}): {', '.join(info['policies'])}")


def cost_table(doc: dict[str, Any]) -> Table | None:
    costs = doc.get("costs")
    if not costs:
        return None
    currency = costs["currency"]
    t = Table(title="model costs" + (f" ({currency})" if currency else " (no price table: "
                                     "tokens only)"), title_justify="left")
    for col in ("policy", "model", "requests", "replayed", "input tokens", "output tokens",
                "cost"):
        t.add_column(col, justify="left" if col in ("policy", "model") else "right")
    for r in costs["rows"]:
        t.add_row(escape(r["policy"]), escape(r["model"]), str(r["requests"]), str(r["replayed"]),
                  str(r["input_tokens"]), str(r["output_tokens"]), r["cost"] or "—")
    t.add_row("league", "", "", "", str(costs["total_input_tokens"]),
              str(costs["total_output_tokens"]), costs["total_cost"] or "—")
    return t


def fallback_line(table: dict[str, Any]) -> str | None:
    """One game table's fallbacks, per policy with its causes (None: no decision fell back):
    a bot that raised on every turn scored what the game's fallback played, not what it
    would have, so the standings say so beside its row."""
    return fallback_text({row["policy"]: row.get("fallbacks") or {} for row in table["rows"]},
                         {row["policy"]: row.get("fallback_error") for row in table["rows"]})


def fallback_text(by_policy: Mapping[str, Mapping[str, int]],
                  first_error: Mapping[str, str | None] | None = None) -> str | None:
    """``… fell back: crash 24 (error 24; first: ValueError: boom); …`` for the policies with
    any fallback, or None."""
    parts = []
    for policy, causes in by_policy.items():
        if causes:
            detail = ", ".join(f"{cause} {n}" for cause, n in sorted(causes.items()))
            error = (first_error or {}).get(policy)
            if error:
                detail += f"; first: {error}"
            parts.append(f"{policy} {sum(causes.values())} ({detail})")
    if not parts:
        return None
    return ("decisions that fell back (the game played its fallback instead; causes: "
            "docs/api.md, faults) — fell back: " + "; ".join(parts))
