"""What every module shares: the colours, the effort budget, pro-rata sharing and `Outcome`.

Module physics are plain functions over a small mutable state dataclass: `resolve` and
`dynamics` change the state they are given (the engine hands them a clone, so a failed round
leaves the real state untouched) and return what happened. Nothing here knows about seats'
aliases, the clock or I/O; module events carry slots and the engine adds ``r`` and ``alias``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

COLORS: tuple[str, str, str] = ("red", "green", "blue")
"""Canonical colour order (ties break red → green → blue)."""

COLOR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLORS)}

EFFORT_BUDGET = 3
"""Effort units per cog per round (a rule: the config accepts 3 only)."""

ModuleEvent = tuple[str, dict[str, Any]]
"""``(kind, data)``; per-seat events carry ``slot`` in data. The engine adds ``r``/``alias``."""

INT, PATCH, COLOR = "int", "patch", "color"
Clamp = tuple[str, str, str | None]
"""One row of a module's ``CLAMPS`` table (rules §5), applied in order: ``(field, kind,
other)``. An ``int`` is clamped to 0..3 and, with `other`, to what that field left of the effort
budget; a ``patch`` to a patch id; a ``color`` to a colour, `other` naming the field whose
colour stands in for an unusable one (else red)."""

Move = dict[str, Any]
"""A clamped decision (see `actions.py`): harvest, clean, patch, eat, eat_color, plant,
plant_color as ints / colour names / None. A pass has every int 0 and ``patch`` None."""


@dataclass(slots=True)
class Outcome:
    """What `resolve` reports, by slot: gains (≥ 0), amounts physically removed, effort units,
    the module's events in order, and (mushrooms only) the payoff flow."""

    gains: list[float]
    extracted: list[float]
    effort: list[int]
    events: list[ModuleEvent] = field(default_factory=list)
    flow: list[dict[str, Any]] | None = None


def pro_rata(demands: Sequence[float], amount: float) -> tuple[list[float], float]:
    """Share `amount` among `demands` (rules §7): all demands met if they fit, else each gets
    ``d * amount / D`` and nothing is left. Returns (shares, what remains)."""
    total = sum(demands)
    if total <= amount:
        return [float(d) for d in demands], amount - total
    return [d * amount / total for d in demands], 0.0


def clamp01(x: float) -> float:
    return 0.0 if x < 0.0 else 1.0 if x > 1.0 else x
