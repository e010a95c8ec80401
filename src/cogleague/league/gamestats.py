"""Per-game extras for the standings and the report, read from each game's results.

The seeds rank by the mean episode score; these columns are context, for the record:
Ledger — mean payoff beside the median score, and collusion-ring flags a seat is part of;
Commons Family — the seat's share of group welfare and whether the resource survived;
dilemma — cooperation rate, the share of its promises a policy kept (over seats that made
any), and promises made per episode. `series` keeps one small per-round curve
per episode (cooperation or resource level) for the report's plots.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cogleague.core.episode import EpisodeOutcome

SeatExtras = Callable[[Mapping[str, Any], int], dict[str, float | None]]
Series = Callable[[EpisodeOutcome, int], dict[str, Any] | None]


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    fmt: str = "{:.2f}"


@dataclass(frozen=True)
class GameStats:
    """A game's extra standings columns and its per-round curve.

    A series is ``{"label": …, "group": [per round]}`` (one curve per episode, e.g. the
    resource) or ``{"label": …, "seats": [[per round] per seat]}`` (averaged per policy)."""

    columns: tuple[Column, ...]
    seat_extras: SeatExtras
    series: Series | None = None


def per_seat(results: Mapping[str, Any], key: str, seat: int) -> Any:
    """`results[key][seat]`, or `results["seats"][seat][key]` for games that nest per seat."""
    value = results.get(key)
    if isinstance(value, list) and seat < len(value):
        return value[seat]
    seats = results.get("seats")
    if isinstance(seats, list) and seat < len(seats) and isinstance(seats[seat], Mapping):
        return seats[seat].get(key)
    return None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


# -- Ledger ---------------------------------------------------------------------------------
def _ledger(results: Mapping[str, Any], seat: int) -> dict[str, float | None]:
    rings = results.get("rings") or {}
    pairs = rings.get("pairs", []) if isinstance(rings, Mapping) else []
    flags = sum(1 for p in pairs if isinstance(p, Mapping) and seat in (p.get("a"), p.get("b")))
    return {"mean_payoff": _num(per_seat(results, "mean", seat)), "ring_flags": float(flags)}


# -- Commons Family -------------------------------------------------------------------------
def _commons(results: Mapping[str, Any], seat: int) -> dict[str, float | None]:
    welfare = _num(results.get("welfare"))
    score = _num(per_seat(results, "scores", seat))
    share = score / welfare if welfare and score is not None else None
    dead = results.get("dead_patches")
    dead_count = len(dead) if isinstance(dead, list) else (_num(dead) or 0.0)
    survived = results.get("collapse_round") is None and not dead_count
    return {"welfare_share": share, "survival": 1.0 if survived else 0.0}


# -- dilemma --------------------------------------------------------------------------------
def _dilemma(results: Mapping[str, Any], seat: int) -> dict[str, float | None]:
    made = _num(per_seat(results, "promises_made", seat))
    kept = _num(per_seat(results, "promises_kept", seat))
    return {"cooperation_rate": _num(per_seat(results, "cooperation_rate", seat)),
            "promises_kept": kept / made if made and kept is not None else None,
            "promises_made": made}


# -- per-round series ----------------------------------------------------------------------
def _ledger_series(outcome: EpisodeOutcome, seats: int) -> dict[str, Any] | None:
    """Mean payoff per meeting, per seat and round (``meeting`` events)."""
    totals: dict[int, list[list[float]]] = {}
    for e in outcome.log.events:
        if e.kind == "meeting":
            row = totals.setdefault(int(e.data["round"]), [[0.0, 0.0] for _ in range(seats)])
            for side in ("A", "B"):
                seat = e.data["a" if side == "A" else "b"]
                row[seat][0] += float(e.data[f"pay{side}"])
                row[seat][1] += 1
    rounds = [totals[r] for r in sorted(totals)]
    return {"label": "payoff per meeting",
            "seats": [[(r[s][0] / r[s][1]) if r[s][1] else None for r in rounds]
                      for s in range(seats)]}


def _commons_series(outcome: EpisodeOutcome, seats: int) -> dict[str, Any] | None:
    """The resource's residual value after each round (``round_end`` events)."""
    values = [float(e.data["residual"]) for e in outcome.log.events if e.kind == "round_end"]
    return {"label": "resource value", "group": values}


def _dilemma_series(outcome: EpisodeOutcome, seats: int) -> dict[str, Any] | None:
    """Each seat's share of cooperate choices per round (``choices_revealed`` events)."""
    counts: dict[int, list[list[int]]] = {}
    for e in outcome.log.events:
        if e.kind == "choices_revealed":
            row = counts.setdefault(int(e.data["round"]), [[0, 0] for _ in range(seats)])
            for seat, choice in zip(e.data["seats"], e.data["choices"], strict=True):
                row[seat][0] += choice == "cooperate"
                row[seat][1] += 1
    rounds = [counts[r] for r in sorted(counts)]
    return {"label": "cooperation rate",
            "seats": [[(r[s][0] / r[s][1]) if r[s][1] else None for r in rounds]
                      for s in range(seats)]}


STATS: dict[str, GameStats] = {
    "ledger": GameStats((Column("mean_payoff", "mean payoff"),
                         Column("ring_flags", "ring flags", "{:.2f}")), _ledger,
                        _ledger_series),
    "commons": GameStats((Column("welfare_share", "welfare share", "{:.1%}"),
                          Column("survival", "survival", "{:.0%}")), _commons,
                         _commons_series),
    "dilemma": GameStats((Column("cooperation_rate", "cooperation", "{:.0%}"),
                          Column("promises_kept", "promises kept", "{:.0%}"),
                          Column("promises_made", "promises / episode", "{:.1f}")), _dilemma,
                         _dilemma_series),
}


def columns(game: str) -> tuple[Column, ...]:
    stats = STATS.get(game)
    return stats.columns if stats else ()


def seat_extras(game: str, results: Mapping[str, Any], seat: int) -> dict[str, float | None]:
    stats = STATS.get(game)
    return stats.seat_extras(results, seat) if stats else {}


def series(game: str, outcome: EpisodeOutcome, seats: int) -> dict[str, Any] | None:
    stats = STATS.get(game)
    if stats is None or stats.series is None:
        return None
    return stats.series(outcome, seats)
